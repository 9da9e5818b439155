"""Seed the prior report checks' row: folded after the contradiction detector, with weight 4.

Like the contradiction detector, the prior report checks are single-purpose (their silence is
no vote), so only their own weight decides how far the general detectors' silence discounts
them: at weight 4 after the two text detectors (weight 2) a flag keeps 4/6 of its confidence
(0.65 -> 0.43), above the default display threshold 0.3. A row lets the admin order and weigh
them like every other detector (docs/audit.md, "Against the prior report").
"""
from django.db import migrations

NAME = "prior"
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
    dependencies = [("detectors", "0003_contradiction_weight")]
    operations = [migrations.RunPython(seed, unseed)]
