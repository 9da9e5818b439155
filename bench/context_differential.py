"""The engine's ConText against its reference (spaCy + medspacy), on every text of the benches.

Prints counts; asserts nothing (tests/workers/nlp/test_context_reference.py asserts the same on
the repository's own texts, and on these where they are on the machine). Run from the
repository root:

    .venv/bin/python bench/context_differential.py [--show 5]

For every distinct text of ../shared/bench/*.jsonl and bench/*.jsonl (reports, prior reports,
sentences; dev records composed as the labeler composes them), the questions the engine asks
ConText (``reference_context.calls``: each sentence with its vocabulary mentions, each sentence
with every word as a target, the whole report at once) are answered by
``workers.nlp.context._verdicts`` and by ``tests/support/reference_context.verdicts``; tokens
are compared too. Prints the counts compared and differing, and the first differences.

``--made-up N`` also compares N made-up strings of cues (``reference_context.combinations``)
and N random strings of letters, digits, punctuation, whitespace and spaCy's special cases
(tokens only), from ``--seed``.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=5, help="differences to print")
    parser.add_argument("--made-up", type=int, default=0, help="made-up strings to compare")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from tests.support import reference_context as reference
    from workers.nlp import context
    from workers.nlp.tokenizer import tokenize

    files = sorted((ROOT.parent / "shared" / "bench").glob("*.jsonl"))
    files += sorted((ROOT / "bench").glob("*.jsonl"))
    texts: dict[str, None] = {}
    for path in files:
        for text in reference.record_texts(path):
            texts.setdefault(text, None)
    nlp, _ = reference.pipeline()
    token_differ = sum([(t.idx, t.idx + len(t)) for t in nlp.make_doc(text)]
                       != [(a, b) for a, b, _ in tokenize(text)] for text in texts)
    questions = targets = differ = 0
    for text in texts:
        for question in reference.calls(text):
            ours, theirs = context._verdicts(*question), reference.verdicts(*question)
            questions += 1
            targets += len(ours)
            if ours != theirs:
                differ += 1
                if differ <= args.show:
                    print("differs:", repr(question[0][:200]), ours, theirs)
    print(f"{len(files)} files, {len(texts)} distinct texts: tokens differ on {token_differ}")
    print(f"{questions} ConText questions ({targets} targets): {differ} answered differently")
    if args.made_up:
        made_up = reference.combinations(args.made_up, args.seed)
        differ = sum(context._verdicts(*q) != reference.verdicts(*q) for q in made_up)
        print(f"{len(made_up)} made-up strings of cues (seed {args.seed}): {differ} differ")
        strings = random_strings(args.made_up, args.seed)
        differ = sum([(t.idx, t.idx + len(t), t.idx + len(t) + len(t.whitespace_))
                      for t in nlp.make_doc(text)] != tokenize(text) for text in strings)
        print(f"{len(strings)} random strings (seed {args.seed}): tokens differ on {differ}")


def random_strings(count: int, seed: int) -> list[str]:
    """Up to 12 pieces each: characters the tokenizer's rules treat apart, and special cases
    whole or broken up by what surrounds them."""
    rng = random.Random(seed)
    pieces = list("abcXYZ019 .,;:()-'\"/\n\t!?%+*=<>[]_@#&`~^") + [
        "e.g.", "a.m.", ":)", "(:", "can't", "Dr.", "http://a.b/c", "  ", "'s", "n't",
        "\u00a0", "x-ray", "8)", "o.O"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
            for _ in range(count)]


if __name__ == "__main__":
    main()
