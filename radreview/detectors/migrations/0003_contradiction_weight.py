"""Seed the contradiction detector's row: folded last, with weight 4 (docs/audit.md says why).

A contradiction is single-purpose (its silence is no vote), so only its own weight decides how
far the general detectors' silence discounts it: folded last at weight 4 against the text
detectors' 2 it keeps 4/6 of its confidence (0.7 → 0.47), and 4/9 (0.7 → 0.31) when RadFlag,
V-RAG and RA-RRG also looked at the sentence and said nothing: above the default display
threshold 0.3 either way, so a pair of contradicting sentences is always shown.
"""
from django.db import migrations

NAME = "contradiction"
WEIGHT = 4.0  # the spec's default weight when this migration was written


def seed(apps, schema_editor):
    DetectorWeight = apps.get_model("detectors", "DetectorWeight")
    last = DetectorWeight.objects.order_by("-order").values_list("order", flat=True).first()
    order = 0 if last is None else last + 1
    DetectorWeight.objects.get_or_create(
        detector=NAME, defaults={"order": order, "weight": WEIGHT})


def unseed(apps, schema_editor):
    apps.get_model("detectors", "DetectorWeight").objects.filter(detector=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [("detectors", "0002_defaults")]
    operations = [migrations.RunPython(seed, unseed)]
