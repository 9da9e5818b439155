"""ORU^R01 results read into a delivery, and the acknowledgements answered."""
import hl7
import pytest

from radreview.dictation import hl7_messages
from tests.support.hl7 import FINDINGS, IMPRESSION, fields, oru


@pytest.mark.parametrize("value_type", ["TX", "FT"])
def test_a_result_gives_its_report_accession_patient_status_and_sender(value_type):
    delivery = hl7_messages.read_oru(hl7_messages.parse(oru(status="P",
                                                            value_type=value_type)))
    assert delivery.text == f"{FINDINGS}\n{IMPRESSION}"
    assert (delivery.accession_number, delivery.patient_id) == ("ACC-100", "P-100")
    assert delivery.result_status == "preliminary"
    assert (delivery.sender, delivery.message_id, delivery.channel) == (
        "POWERSCRIBE^HOSPITAL", "MSG-1", "hl7")


def test_escaped_delimiters_in_the_text_are_read_back():
    delivery = hl7_messages.read_oru(hl7_messages.parse(
        oru(lines=("FINDINGS: Tube \\T\\ line in place.",))))
    assert delivery.text == "FINDINGS: Tube & line in place."


@pytest.mark.parametrize("raw, code, words", [
    ("this is not hl7", "AR", "Not an HL7 v2 message"),
    (oru().replace("ORU^R01", "ADT^A08"), "AR", "this is ADT^A08"),
    (oru().split("\rOBR")[0] + "\r", "AE", "no OBR segment"),
    (oru(accession=""), "AE", "No accession number"),
    (oru(status="X"), "AE", "Result status (OBR-25) X"),
    (oru(lines=("",)), "AE", "No report text"),
])
def test_a_message_radreview_does_not_take_is_refused_with_the_reason(raw, code, words):
    with pytest.raises(hl7_messages.MessageRefused) as refused:
        hl7_messages.read_oru(hl7_messages.parse(raw))
    assert refused.value.code == code and words in refused.value.message


def test_the_ack_echoes_the_control_id_and_gives_the_reason():
    message = hl7.parse(oru(control_id="MSG-77"))
    accepted = hl7_messages.ack(message, "AA", "Stored as the report of study #3.")
    assert fields(accepted, "MSH")[8] == "ACK^R01^ACK"
    assert fields(accepted, "MSA")[1:4] == ["AA", "MSG-77", "Stored as the report of study #3."]
    assert "ERR|" not in accepted
    reason = "The study with accession number ACC-100 belongs to another patient ID; " \
             "nothing was stored."
    refused = hl7_messages.ack(message, "AE", reason)
    assert fields(refused, "MSA")[1:3] == ["AE", "MSG-77"]
    assert fields(refused, "ERR")[8] == reason  # the whole reason, past MSA-3's 80 characters
    broken = hl7_messages.ack(None, "AR", "Not an HL7 v2 message: |bad^")
    assert fields(broken, "MSA")[1] == "AR" and "|bad" not in fields(broken, "ERR")[8]
