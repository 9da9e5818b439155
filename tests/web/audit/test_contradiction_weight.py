"""The contradiction detector's row in the site's combination settings (migration 0003)."""
import pytest

from radreview.detectors.models import DetectorWeight
from radreview.detectors.services import combination_config


@pytest.mark.django_db
def test_the_migration_seeds_the_contradiction_weight_folded_last():
    rows = list(DetectorWeight.objects.values_list("detector", "weight"))
    assert rows[-1] == ("contradiction", 4.0)
    assert [name for name, _ in rows[:-1]] == ["correction", "judge", "comparative", "radflag",
                                               "vrag", "rarrg"]
    config = combination_config()
    # the prior report checks (issue 31), declared after it, fold after it at their spec's
    # weight (no row of their own)
    assert config.order[-2:] == ("contradiction", "prior")
    assert config.weight("contradiction") == 4.0 and config.weight("prior") == 4.0
