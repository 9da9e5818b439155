"""The combination settings and filter rules: seeded defaults, edited by admins, read by the
combine stage."""
import pytest
from django.core.exceptions import ValidationError

from radreview.detectors.models import CombinationSettings, DetectorWeight, FilterRule
from radreview.detectors.services import combination_config
from workers.combine import config as defaults


@pytest.mark.django_db
def test_the_defaults_are_seeded_and_read_back():
    config = combination_config()
    assert config.flag_threshold == defaults.DEFAULT_FLAG_THRESHOLD
    assert config.similarity_threshold == defaults.DEFAULT_SIMILARITY_THRESHOLD
    assert config.order[:3] == ("correction", "judge", "comparative")
    assert {rule.kind for rule in config.rules} == {"restates_sentence", "omission"}
    assert len(config.rules) == len(defaults.DEFAULT_RULES)


@pytest.mark.django_db
def test_admins_edit_weights_thresholds_and_rules(admin_client_):
    response = admin_client_.post("/admin/detectors/combinationsettings/1/change/", {
        "enabled": "on", "similarity_threshold": "0.5", "flag_threshold": "0.45"})
    assert response.status_code == 302
    weight = DetectorWeight.objects.get(detector="judge")
    admin_client_.post(f"/admin/detectors/detectorweight/{weight.pk}/change/",
                       {"detector": "judge", "order": "9", "weight": "2.5"})
    response = admin_client_.post("/admin/detectors/filterrule/add/", {
        "name": "tubes", "kind": "pattern", "enabled": "on", "order": "5", "metric": "",
        "threshold": "0.5", "pattern": r"\btube\b", "harm": "very low", "description": ""})
    assert response.status_code == 302
    config = combination_config()
    assert (config.similarity_threshold, config.flag_threshold) == (0.5, 0.45)
    assert config.weight("judge") == 2.5 and config.order[-1] == "judge"
    assert "tubes" in [rule.name for rule in config.rules]
    FilterRule.objects.filter(name="tubes").update(enabled=False)
    assert "tubes" not in [rule.name for rule in combination_config().rules]


@pytest.mark.django_db
def test_a_pattern_rule_needs_a_valid_expression(admin_client_):
    response = admin_client_.post("/admin/detectors/filterrule/add/", {
        "name": "broken", "kind": "pattern", "enabled": "on", "order": "0", "metric": "",
        "threshold": "0.5", "pattern": "(unclosed", "harm": "very low"})
    assert response.status_code == 200 and b"Not a regular expression" in response.content
    assert not FilterRule.objects.filter(name="broken").exists()


@pytest.mark.django_db
def test_radiologists_cannot_reach_the_settings(radiologist_client):
    assert radiologist_client.get("/admin/detectors/filterrule/").status_code == 302


@pytest.mark.django_db
def test_switching_off_means_no_combination():
    CombinationSettings.objects.filter(pk=1).update(enabled=False)
    assert combination_config() is None



def test_a_weight_for_a_detector_nobody_declared_is_refused():
    with pytest.raises(ValidationError, match="No detector is named 'radflagg'"):
        DetectorWeight(detector="radflagg", weight=1.0).clean()
    DetectorWeight(detector="radflag", weight=1.0).clean()  # a declared one is fine
