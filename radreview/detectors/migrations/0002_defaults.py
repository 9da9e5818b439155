"""The defaults of workers.combine.config as rows the admin can edit."""
from django.db import migrations

# The detectors and their fold order when this migration was written (text detectors first,
# every report has them; image detectors after), each with weight 1.
DETECTOR_ORDER = ("correction", "judge", "comparative", "radflag", "vrag", "rarrg")


def seed(apps, schema_editor):
    from workers.combine import config  # noqa: PLC0415 - defer scipy

    CombinationSettings = apps.get_model("detectors", "CombinationSettings")
    DetectorWeight = apps.get_model("detectors", "DetectorWeight")
    FilterRule = apps.get_model("detectors", "FilterRule")
    CombinationSettings.objects.get_or_create(
        pk=1, defaults={"similarity_threshold": config.DEFAULT_SIMILARITY_THRESHOLD,
                        "flag_threshold": config.DEFAULT_FLAG_THRESHOLD})
    for order, name in enumerate(DETECTOR_ORDER):
        DetectorWeight.objects.get_or_create(detector=name,
                                             defaults={"order": order, "weight": 1.0})
    for order, rule in enumerate(config.DEFAULT_RULES):
        FilterRule.objects.get_or_create(
            name=rule.name, defaults={"kind": rule.kind, "order": order, "metric": rule.metric,
                                      "threshold": rule.threshold, "pattern": rule.pattern,
                                      "harm": rule.harm})


class Migration(migrations.Migration):
    dependencies = [("detectors", "0001_initial")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
