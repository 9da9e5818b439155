"""What a sentence's own words say stood in the gap of a replaced finding.

A substituted term sits among words that only fit some findings: "Possible nondisplaced ___ of
the right 1st rib", "posterolateral fifth ___", "loss in height among several vertebral bodies
including a thoracic ___". A bone named in the sentence, a word that grades or dates a fracture
(nondisplaced, healed, remote, compression) or a rib's place (its number, posterolateral) just
before the gap: a radiologist reads a fracture there whatever the library writes most often
between those words. A library in another style seldom writes these words at all (the IU dev
reports name "remote" next to a finding twice), so its contexts cannot say it.

The wording follows the sentence: a bone of the spine takes "compression fracture", a bone the
sentence names after the gap ("___ of the right 1st rib") or another named bone takes
"fracture", else the chest's usual fracture, a rib's; plural when the sentence counts several
("multiple", "numerous", "bilateral", "ribs", a list of rib numbers) and no article makes it
one, or when its verb is plural.
"""
from __future__ import annotations

import re

# a bone a chest radiograph shows, named anywhere in the sentence
_BONE_RE = re.compile(r"^(?:ribs?|vertebra[el]?|vertebrae|vertebral|thoracolumbar|spine|spinal|"
                      r"clavicles?|clavicular|scapulae?|scapular|humer(?:us|i|al)|stern(?:um|al))$")
_SPINE_RE = re.compile(r"^(?:vertebra\w*|thoracolumbar|spine|spinal)$")
# words that grade or date a fracture, just before the gap
_FRACTURE_WORD_RE = re.compile(r"^(?:nondisplaced|non-displaced|displaced|minimally-displaced|"
                               r"healed|healing|remote|comminuted|compression|"
                               r"pathologic)$")
# where on a rib: its number, or the rib's usual places
_RIB_PLACE_RE = re.compile(r"^(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|"
                           r"tenth|eleventh|twelfth|\d+(?:st|nd|rd|th)|posterolateral|"
                           r"anterolateral)$")
_SEVERAL_RE = re.compile(r"^(?:multiple|numerous|several|bilateral|both|ribs)$")
_PLURAL_VERBS = frozenset({"are", "were", "have", "appear", "remain", "persist"})
# how far before the gap a grading or place word still speaks of it
_NEAR = 2


def describes_fracture(word: str) -> bool:
    """A word that grades, dates or places a fracture: part of the report's context, never of
    a substituted name ("posterolateral gastric cancer" replaced keeps "posterolateral")."""
    return bool(_FRACTURE_WORD_RE.match(word) or _RIB_PLACE_RE.match(word))


def fracture_cues(words: list[str], a: int, b: int) -> list[str]:
    """The sentence's own words, outside the gap ``words[a:b]``, that call for a fracture in
    it: a bone it names, or a grading, dating or rib place word just before the gap."""
    bones = [w for w in words[:a] + words[b:] if _BONE_RE.match(w)]
    return bones + [w for w in words[max(0, a - _NEAR):a] if describes_fracture(w)]


def fracture_wording(words: list[str], a: int, b: int) -> str | None:
    """The fracture the sentence's own words call for in the gap ``words[a:b]``, worded as
    the sentence needs it, or None when they call for none."""
    if not fracture_cues(words, a, b):
        return None
    before, after = words[:a], words[b:]
    if any(_SPINE_RE.match(w) for w in before + after):
        head = "compression fracture"
    elif any(_BONE_RE.match(w) for w in after) or any(
            _BONE_RE.match(w) and not w.startswith("rib") for w in before):
        head = "fracture"
    else:
        head = "rib fracture"
    # a list of rib numbers ("left ___ and ___ posterolateral old ___") counts several
    # an article in the gap's own phrase makes it one ("several vertebral bodies including a
    # moderate thoracic ___")
    one = any(w in ("a", "an", "one") for w in before[-4:])
    several = bool(after[:1] and after[0] in _PLURAL_VERBS) or not one and (
        any(_SEVERAL_RE.match(w) for w in before) or "and" in before[-3:])
    return head + "s" if several else head


__all__ = ["describes_fracture", "fracture_cues", "fracture_wording"]
