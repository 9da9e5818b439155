"""The contradiction detector's row in the site's combination settings (migration 0003)."""
import pytest

from radreview.detectors.models import DetectorWeight
from radreview.detectors.services import combination_config


@pytest.mark.django_db
def test_the_migration_seeds_the_contradiction_weight_folded_last():
    rows = list(DetectorWeight.objects.values_list("detector", "weight"))
    # the prior report checks (issue 31, migration 0004) fold after it, at the same weight
    assert rows[-2:] == [("contradiction", 4.0), ("prior", 4.0)]
    assert [name for name, _ in rows[:-2]] == ["correction", "judge", "comparative", "radflag",
                                               "vrag", "rarrg"]
    config = combination_config()
    assert config.order[-2:] == ("contradiction", "prior")
    assert config.weight("contradiction") == 4.0 and config.weight("prior") == 4.0
