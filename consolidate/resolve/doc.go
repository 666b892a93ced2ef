// Package resolve is kgforge's entity-resolution engine: it decides which
// extracted names (entities) denote the same thing, groups them into
// clusters, names each cluster, and records why, for the merge log and the
// review page. It also normalises predicates and clusters synonymous ones.
// Embeddings are computed elsewhere and passed in; resolve normalises them
// to unit length, so a dot product is a cosine.
//
// # Algorithm
//
//  1. Entities are sorted by Key; everything after works on that order,
//     which is why the same input in any order gives the same result.
//  2. Overrides are matched to entities (see Overrides).
//  3. Blocking keys, which do not depend on embeddings, give candidate
//     pairs. A name is normalised by NormalizeName (NFKC, case folding,
//     accents removed, full stops and apostrophes dropped, other
//     punctuation made a space) and compared without spaces. Four kinds of
//     key, each a signal when two entities share it: name (the normalised
//     name); suffix (the name without a leading "the" and trailing
//     corporate forms such as Inc, Corp, Co, Ltd, LLC, GmbH, AG, SA/S.A.,
//     NV/N.V., BV, PLC, SpA, Oy, AB, KK); plural (the suffix key with its
//     last word made singular by simple English rules); acronym (a
//     one-word name of 2 to 6 letters, capitals when longer than 4, against
//     the initials of the significant words of another name, or of all its
//     words: "IBM" and "International Business Machines"). A key shared by
//     more than MaxBlockSize entities is too common to be evidence and is
//     ignored, except equal names, which are then linked as a star.
//  4. Nearest neighbours by cosine give the other candidate pairs.
//     Entities with vectors are grouped by type compatibility (the
//     connected components of the relation over the types present; an
//     entity of unknown type joins all of them). A group smaller than
//     ExactLimit is compared pair by pair, in tiles, on all workers. A
//     larger one is searched in an index (Config.Index): by default an
//     inverted file (IndexIVF: spherical k-means cells, each member
//     compared with the members of its Probes nearest cells), or an HNSW
//     graph (IndexHNSW, github.com/coder/hnsw). Each entity keeps its K
//     nearest compatible neighbours with cosine ≥ Floor (0.5, under Low:
//     a candidate is decided by the rules, and one under Low merges only
//     by a key or the score), and in a group of at most 256 members its K
//     nearest whatever their cosine; a pair is a candidate when either end
//     kept the other. Two more blocks, with the signals (below): rare
//     shared words, and rare shared character trigrams (each entity
//     looked up by its 12 rarest trigrams that at most MaxBlockSize names
//     hold, keeping its K others sharing the most of them, at least two:
//     "ALCATEL" / "ALKATEL", "DP29F" / "DP-29F"). Every block keeps at
//     most K pairs per entity. All candidates are restricted to
//     type-compatible pairs and leave out keep-apart entities.
//  5. Every candidate pair is decided by the rules below. Must-link pairs
//     and merged pairs are joined in a union-find (path compression, union
//     by rank); a cannot-link pair is never joined directly.
//  6. Each connected group is checked against the bounds: no cannot-link
//     pair inside, at most MaxClusterSize members, and every two members
//     (not must-linked together) of compatible types (an entity of unknown
//     type can join a Person and an Organization) and at least
//     MinClusterSim alike. A group that breaks a bound is split, never
//     merged wholesale: average-linkage agglomeration restricted to it,
//     starting from its must-link units, joins the two parts with the
//     highest mean similarity among those that share an accepted link,
//     stay within MaxClusterSize and whose every cross pair is at least
//     MinClusterSim alike. This is the answer to chaining: A~B and B~C
//     above the threshold do not put A and C together when A and C are
//     far apart. Each split is recorded with the pair that broke the bound
//     and the links it cut.
//  7. Each cluster gets its canonical name, type and id, and its merge log:
//     every accepted link between two of its members.
//
// The similarity the bounds use is the cosine, except: a cannot-link pair,
// a pair of incompatible types and a pair of different anchors are minus
// infinity; a pair with an
// accepted link counts at least High (it was judged a match, maybe by a key
// with a lower cosine); a pair with a missing vector and no link counts
// MinClusterSim (unknown: it neither breaks nor holds a cluster).
//
// # Bands and rules
//
// A pair's band comes from its cosine: high (≥ High), uncertain (≥ Low),
// low, or none when a vector is missing. The rules, first match wins:
//
//   - guard_number: names that differ in a number, a Roman numeral (II to
//     XXXIX) or a month name ("Station 1"/"Station 2", "Model X50"/"Model
//     X500", "2023 report"/"2024 report"), and two product names whose
//     model marks (words in capitals of five letters or more, in a name
//     that also writes small letters: "LCS-CSJ" / "LCS-TWA/B") each hold
//     one the other lacks, never merge automatically,
//     whatever their cosine; they are uncertain when the cosine is ≥ Low or
//     a key agrees, else apart.
//   - same_name: equal normalised names merge.
//   - cosine_high: cosine ≥ High merges, but a short name (its suffix key
//     has fewer than 4 letters and digits, or a character entropy under 1.5
//     bits: "IBM", "IBM Corp", "Anna") also needs an agreeing key, or a
//     cosine ≥ ShortHigh (short_name_cosine); otherwise it is uncertain
//     (guard_short).
//   - key_and_cosine: a cosine in [Low, High) merges when a blocking key
//     agrees — the key and the embedding are two independent witnesses.
//   - typo_and_cosine: a cosine in [Low, High) merges when two names of
//     two words or more differ in one word each by a typo (at most one
//     edit in five letters: "quering" / "querying", "ALCATEL BELL" /
//     "ALKATEL BELL"), unless a name is a person's, where one letter makes
//     another name ("Mario" / "Maria"); a one-word name ("Argentina" /
//     "Argentine") and a word with letters added at its end ("South
//     Korea" / "South Korean") stay in the band.
//   - uncertain_cosine: a cosine in [Low, High) without a key is recorded,
//     not merged (guard_short for a short name).
//   - key_without_cosine: a key agrees but the cosine is under Low (or
//     unknown): recorded, not merged.
//   - anything else stays apart.
//
// These are the rules of RulesCosine, with one guard more before
// cosine_high: guard_subset (below). Under RulesScore a candidate pair is
// decided by the calibrated score instead (below), and under
// RulesThreshold by a cosine ≥ Low behind every guard; the number and
// short-name guards, the incompatible types and equal names stay as they
// are.
//
// # Kinds of name
//
// Under RulesKind, the default, each pair is decided by the rule set of
// its kind of name (KindOf of the entity type: organisation, person,
// product, or concept for every other type and an unknown one), from
// Config.KindRules or DefaultKindRules: organisations, persons and
// products by RulesThreshold, concepts by RulesCosine. No kind takes
// RulesScore by default: out of sample the score did not beat the simple
// rules (docs/benchmarks.md), so no pair carries a number it cannot back
// (Pair.Score 0; the rule and its signals say why). Two names of different
// kinds take the rule of the known kind when one type is unknown, else
// RulesCosine. A kind changes the merge rule, never a guard: every rule
// set keeps the number, variant, short-name, one-word-each and subset
// guards.
//
// Under RulesCosine and RulesThreshold, an acronym of three letters or
// more ("WCW") merges with the one name of the build it abbreviates
// ("World Championship Wrestling", written one way or several) whatever
// their cosine (sole_acronym, right after same_name): a sentence encoder
// does not see an acronym in its expansion (cosines 0.27–0.68 on
// Re-DocRED), and one expansion in the build leaves nothing to confuse it
// with. Two letters, or two names with its initials, need a cosine of at
// least Low as any key does.
//
// Likewise a person's surname alone ("Guattari") merges with the one
// person name of the build that holds the word, as its surname ("Félix
// Guattari"), whatever their cosine (sole_surname, right after
// sole_acronym): a text names a person in full once and by surname after,
// and a sentence encoder puts the two apart (cosines 0.6–0.8 on
// Re-DocRED). A short surname, or a word a second person name holds, does
// not.
//
// RulesThreshold, first match wins: guard_number; same_name;
// sole_acronym; sole_surname; guard_variant; key_and_cosine; then, at a cosine ≥ Low, guard_short (a
// short name without a key under ShortHigh), typo_and_cosine (as above),
// guard_words (one word each, not a respelling, under High), guard_subset, else cosine_threshold
// merges; a key under Low is key_without_cosine; anything else stays
// apart. A guarded pair is uncertain when its cosine reaches Low or a key
// agrees; its margin is the distance of its cosine from Low.
//
// # Subsets and titles
//
// guard_subset: when the name words of one name are a strict subset of
// the other's ("PHILIPS" / "INTELLECTUAL PHILIPS PROPERTY STANDARDS",
// "SANOFI" / "SANOFI SYNTHELABO", "Supplier" / "Supplier scores") the
// cosine and the containment are high whether the longer is the same
// company or its subsidiary, its plant or its report, so they do not merge
// it alone, under every rule set. A second signal must agree: a suffix,
// plural or acronym key; extra words that are all legal-form words or
// single letters (corporate suffixes, stop words, legal forms written out:
// "Naamloze Vennootschap", "Aktiengesellschaft"); a neighbour both are
// related to (Entity.Neighbours); the same Anchor; for two person names,
// the longer being the only person name of the build that holds the
// shorter ("Obama" / "Barack Obama"). The bounds count the guard too (a
// shared core must reach its members with a second signal).
//
// An entity with Title set is a source's title or heading (the consolidate
// stage marks them): it names a document, not an entity, so its pairs
// with other names are not decided at all — neither merged nor listed for
// review — and only an equal name or a must-link joins it.
//
// # Signals and the calibrated score
//
// Candidates also come from rare shared words: each entity is paired with
// its K type-compatible others of the highest IDF-weighted containment (at
// least 0.5) among those sharing a name word that at most MaxBlockSize
// names hold. Every candidate pair gets the values of Features: the
// cosine, the keys, the IDF-weighted containment and Jaccard of the name
// words (IDF = ln(1 + n/df) over the build's names; words holding a digit
// left out), the Jaccard of the character trigrams of the compact names,
// the IDF-weighted Jaccard of the descriptions' words and of the names of
// the entities' neighbours (Entity.Neighbours: collective resolution),
// whether the descriptions' numbers differ, the names' length, and typo:
// the names differ in one word each and those two words by one edit in
// five letters or fewer (optimal string alignment: an insertion, a
// deletion, a substitution or two letters swapped; "implementation" /
// "implementations", "NOBEL" / "NOBLE"). The values are in Pair.Values;
// the signals that agree are listed in Pair.Signals.
//
// Under RulesScore (never the default since the kinds of name), first
// match wins: guard_number, with numbers compared
// after normalising their writing (numbersDiffer); same_name;
// guard_variant, when the names differ in one word each and one is a
// variant word of the build — a word of four letters or more that is the
// only difference between two names in at least two different contexts
// (a colour, a size, "for Nikon" / "for Canon"; organisation names
// without their legal-form words) — and neither word is a prefix of the
// other; key_and_cosine (a key and a cosine ≥ Low: the
// development sets hold too few such pairs to weigh the keys); then the
// score p of the Model (logistic regression, fitted by bench/erq -fit,
// model.json): p ≥ Merge merges (rule score; never a pair without vectors,
// as every pair of the fit has its cosine) unless a short name without
// key lacks a cosine ≥ ShortHigh (guard_short) or, under High, the names
// differ in one word each that is not a respelling (guard_words: "John
// Smith" / "Jane Smith"), or one name is inside the other without a
// second signal (guard_subset); a key with p under Uncertain is
// key_without_cosine; p ≥ Uncertain, or a cosine ≥ Low, is uncertain
// (uncertain_score); anything else stays apart. The guards never merge;
// a guarded pair is uncertain when its score reaches Uncertain, its
// cosine Low or a key agrees. Pair.Score holds p and the margin of an
// uncertain pair is |Merge − p|. The fit leaves out the pairs a rule
// decides whatever the score (Candidate.Decided: guard_number, same_name,
// guard_variant, key_and_cosine).
//
// In the bounds, under RulesScore and RulesThreshold (the score part under
// RulesScore only), a pair that no guard of these rules
// would keep apart however high its score (numbers, variant word, one word
// each, a short name without a key, a subset without a second signal)
// counts at least MinClusterSim alike
// when either
//
//   - it shares rare words as a candidate does (containment ≥ 0.5) and its
//     score reaches Uncertain (the score is consulted for no other pair,
//     as it was fitted on candidate pairs), or
//   - it has a shared core: a member that is not short, whose name words
//     are all in both names (containment ≥ 0.999, the level at which the
//     containment signal agrees) or run together in one word of a name
//     ("BROCADES GIST" in "GISTBROCADES"), and that reaches both through
//     accepted links whose every member is such a form of it (a link to
//     each, or a path of forms). That is a name family, one core with different qualifiers
//     ("AKZO NOBEL", "AKZO ARNHEM NOBEL V", "AKZO NAAMLOOZE NOBEL
//     VENNOOTSCHAP"), whose members can be far apart by cosine. The merges
//     from the core to two members held only this way carry the signal
//     shared_core in the merge log.
//
// The chaining trap has neither: its ends ("Northwind", "Southwind") share
// no word, so the bound splits it by their cosine.
//
// Uncertain pairs whose ends end in different clusters are returned for
// review, the most doubtful first: by the distance of their cosine from
// the threshold that would have merged them (Pair.Margin).
//
// # Types
//
// Types are compared after folding case and white space. Two entities may
// merge when their types are equal, when either type is unknown ("" or
// "unknown": an extractor that gave no type said nothing against a match),
// or when Config.Compatible lists the pair (in either direction). Other
// pairs are never candidates, the bounds split a cluster that an entity of
// unknown type joined them in, and only a must-link keeps them together.
//
// # Overrides
//
// Overrides name entities by key, or by name (matching every entity whose
// normalised name is equal); a key takes precedence over a name. A Ref
// with MatchSurface names entities by surface form as written instead (so
// "Apple" and "apple" are two), and a Ref with a Type only the entities of
// that type. They are
// applied before automatic merging, in this order: KeepApart entities take
// part in no merge; CannotLink pairs never end in one cluster — not
// directly, and not through others, as the bound check splits such a
// group; MustLink pairs are merged whatever their similarity and types, in
// the order given, unless that would put a cannot-link pair or a
// keep-apart entity in one cluster; Rename gives the cluster holding an
// entity a canonical name (the earliest rename wins a conflict). Every
// override that matches no entity, or is not applied, is reported in
// Result.UnmatchedOverrides with the reason.
//
// # Anchors
//
// An entity with an Anchor is a record of data (a row entity, anchor
// TABLE[KEY]): the names extracted from documents resolve onto it by the
// same candidates, rules, bands, guards and overrides as onto each other,
// but two entities of different anchors never end in one cluster. Their
// candidate pair is never decided, a connected group holding two of them
// is split (SplitAnchors, the similarity of the two is minus infinity for
// the split), and a must-link that would join two is not applied.
//
// # Canonical names and ids
//
// A cluster's canonical name is the name of its anchored member if it has
// one, else of its member with the most mentions, then the most evidence, then the longest description, then the
// smallest name and then key in byte order, with white space collapsed;
// a rename override replaces it. Its type is that of the first member in
// the same order that has a known type. Its id is kg.ID("entity",
// kg.NormalizeName(canonical), folded type); when clusters share it, the
// largest (then the one with the smallest key) keeps it and the others
// append their smallest member key to the parts hashed. A cluster with an
// anchored member takes that member's Key as its id.
//
// # Determinism
//
// The exact path and IndexIVF are deterministic: k-means starts from
// evenly spaced members and sums in a fixed order, and parallel work is on
// independent items, merged in index order. IndexHNSW is built on one
// goroutine in key order with a seeded level generator, but coder/hnsw
// picks a layer's entry point by map iteration, so two runs over a large
// group can differ in the rare neighbour that one search finds and the
// other misses. Given the candidates, the decisions, bounds, splits and
// names are deterministic.
//
// # Indexes and speed
//
// IndexIVF is the default because it was the one that met the speed
// targets on two cores: coder/hnsw keeps neighbours in maps and allocates
// on every search, and builds on one goroutine, so at 384 dimensions it
// inserts a few hundred to two thousand vectors a second. bench_test.go
// measures both (BenchmarkResolve, TestRecall).
//
// # Predicates
//
// NormalizePredicate writes a predicate in lower snake case;
// ClusterPredicates clusters synonymous predicates by their vectors with
// the same rules, the normalised form being the only blocking key.
package resolve
