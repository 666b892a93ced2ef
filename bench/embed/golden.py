"""Write onnxembed/testdata/golden.jsonl: the token ids Hugging Face
tokenizers (the reference implementation of tokenizer.json) gives a fixed
set of names and edge cases, for onnxembed's tokenizer test.

    python bench/embed/golden.py SAMPLE.txt onnxembed/testdata/golden.jsonl
"""

import json
import sys

from tokenizers import Tokenizer

EDGE = [
    "", "   ", "Crème brûlée", "ÅNGSTRÖM LABORATORIES AB", "Société Générale S.A.", "naïve café",
    "北京大学 Peking University", "東京エレクトロン株式会社", "Samsung 삼성전자", "Ελληνικά ΟΕ",
    "Müller-Lüdenscheidt GmbH & Co. KG", "AT&T Corp.", "3M (Minnesota Mining & Manufacturing)",
    "L'Oréal", "e.g. foo/bar_baz", "x" * 120, "supercalifragilisticexpialidocious", "tab\there\nnewline\rcr",
    "zero\u200bwidth", "nbsp\u00a0name", "ctrl\u0007char", "emoji 🚀 rocket", "ﬁ ligature", "ǅ titlecase",
    "$100 <= 200 ^ ~`|", "«quoted» — dash …", "Ⅻ roman", "١٢٣ arabic digits", "İstanbul Ş.",
    " ".join(["word"] * 300),
]


def main():
    names = open(sys.argv[1]).read().split("\n")[:-1][:1500] + EDGE
    tok = Tokenizer.from_file("onnxembed/testdata/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(256)
    with open(sys.argv[2], "w") as f:
        for n in names:
            f.write(json.dumps({"text": n, "ids": tok.encode(n).ids}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
