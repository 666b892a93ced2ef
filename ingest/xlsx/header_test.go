package xlsx

import (
	"slices"
	"testing"
)

func TestUnique(t *testing.T) {
	got := unique([]string{"a", "A", "a_2", "b", "a"})
	if want := []string{"a", "A_2", "a_2_2", "b", "a_3"}; !slices.Equal(got, want) {
		t.Errorf("unique = %q, want %q", got, want)
	}
}

func TestFindHeader_TitlesNeedALabelRow(t *testing.T) {
	cases := []struct {
		name   string
		head   []row
		merges []cellRange
		want   []string
		used   int
	}{
		{
			name: "title and subtitle",
			head: []row{{1, []string{"Velora"}}, {2, []string{"Scrap 2025"}}, {4, []string{"a", "b"}}, {5, []string{"1", "2"}}},
			want: []string{"a", "b"}, used: 3,
		},
		{
			name: "single value over numbers is a header",
			head: []row{{1, []string{"", "Amount"}}, {2, []string{"1", "2", "3"}}},
			want: []string{"Amount"}, used: 1,
		},
		{
			name: "unmerged group label is a title",
			head: []row{{1, []string{"", "Output"}}, {2, []string{"week", "good", "scrap"}}, {3, []string{"1", "2", "3"}}},
			want: []string{"week", "good", "scrap"}, used: 2,
		},
		{
			name:   "merged group label right of the start",
			head:   []row{{1, []string{"", "Output"}}, {2, []string{"week", "good", "scrap"}}, {3, []string{"1", "2", "3"}}},
			merges: []cellRange{{top: 1, bottom: 1, left: 1, right: 2}},
			want:   []string{"week", "Output_good", "Output_scrap"}, used: 2,
		},
		{
			name:   "title merged over the whole width",
			head:   []row{{1, []string{"Velora"}}, {2, []string{"a", "b", "c"}}, {3, []string{"1", "2", "3"}}},
			merges: []cellRange{{top: 1, bottom: 1, left: 0, right: 5}},
			want:   []string{"a", "b", "c"}, used: 2,
		},
		{
			name:   "group over part of the width",
			head:   []row{{1, []string{"Output"}}, {2, []string{"good", "scrap", "week"}}, {3, []string{"1", "2", "3"}}},
			merges: []cellRange{{top: 1, bottom: 1, left: 0, right: 1}},
			want:   []string{"Output_good", "Output_scrap", "week"}, used: 2,
		},
		{
			name: "one column",
			head: []row{{1, []string{"name"}}, {2, []string{"Kestrel"}}},
			want: []string{"name"}, used: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := findHeader(tc.head, tc.merges)
			if !slices.Equal(h.names, tc.want) || h.used != tc.used {
				t.Errorf("names %q used %d, want %q used %d", h.names, h.used, tc.want, tc.used)
			}
		})
	}
}
