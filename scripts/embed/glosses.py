"""Everyday English for the refinement: WordNet's definitions of common words.

    python scripts/embed/glosses.py [WORDNET_DIR] > glosses.txt

The documentation corpus rarely says "shopper", "groceries" or "handset", so tokenlearn leaves
those rows as distillation made them. WordNet 3.0 (Debian's wordnet-base; the WordNet 3.0 licence,
permissive) defines such words in plain sentences.
Every synset is kept except names (a capitalised first word: people, places, works) and the
animal and plant files (taxonomy, mostly Latin); each becomes one line, "word, other word:
definition; examples". Sorted, so the output does not depend on file order.
"""

import sys
from pathlib import Path

POS = ["noun", "verb", "adj", "adv"]


SKIPPED = {"05", "20"}  # noun.animal, noun.plant


def main() -> None:
    wn = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet")
    out = set()
    for pos in POS:
        for line in (wn / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith(" ") or "|" not in line:
                continue
            head, gloss = line.split("|", 1)
            f = head.split()
            if f[1] in SKIPPED or f[4][:1].isupper():
                continue
            count = int(f[3], 16)
            words = []
            for w in f[4 : 4 + 2 * count : 2]:
                w = w.split("(")[0].replace("_", " ")
                if w.lower() not in (x.lower() for x in words):
                    words.append(w)
            gloss = gloss.strip()
            if len(gloss.split()) >= 3:
                out.add(f"{', '.join(words)}: {gloss}")
    sys.stdout.write("\n".join(sorted(out)) + "\n")


if __name__ == "__main__":
    main()
