import uuid

from django import forms


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that accepts several files (Django's own takes one)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"multiple": True}))
        # Empty files are refused by the upload service, with the same message as the API.
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if not data:
            return []
        files = data if isinstance(data, (list, tuple)) else [data]
        return [super(MultipleFileField, self).clean(item, initial) for item in files]


class UploadForm(forms.Form):
    files = MultipleFileField(
        required=False, label="Images or report file",
        help_text="DICOM files of one study, PNG/JPEG images, and/or a .txt report.",
    )
    report_text = forms.CharField(
        required=False,
        label="Report",
        strip=False,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text="Paste the report here if you have no file for it. "
                  "Leave empty to have one drafted.",
    )
    has_prior = forms.BooleanField(
        required=False, label="A prior exam is available for comparison",
    )
    # DICOM files carry these in their headers; a report alone or PNG/JPEG images do not.
    patient_name = forms.CharField(required=False, max_length=200, label="Patient name (optional)")
    patient_id = forms.CharField(required=False, max_length=64, label="Patient ID (optional)")
    accession_number = forms.CharField(required=False, max_length=64,
                                       label="Accession number (optional)")
    # RadFlag on a generator that runs elsewhere: its candidate report and its samples.
    candidate_text = forms.CharField(
        required=False, label="Candidate report (made elsewhere)", strip=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="The report your generator wrote at a low temperature; RadFlag audits it.",
    )
    samples_text = forms.CharField(
        required=False, label="Samples", strip=False, widget=forms.Textarea(attrs={"rows": 6}),
        help_text='The same generator\'s samples at a higher temperature: a JSON list '
                  '(["sample 1", "sample 2", ...]) or JSON lines, one quoted sample per line. '
                  "At least 2.",
    )
    samples_file = forms.FileField(
        required=False, label="…or a samples file", allow_empty_file=True,
        help_text="A .json list or .jsonl file of the samples.",
    )
    candidate_temperature = forms.FloatField(required=False, min_value=0.0, max_value=5.0,
                                             label="Candidate temperature (optional)")
    sample_temperature = forms.FloatField(required=False, min_value=0.0, max_value=5.0,
                                          label="Sample temperature (optional)")
    generator_name = forms.CharField(required=False, max_length=200,
                                     label="Generator name (optional)")

    # A fresh key per page shown: sending the same form twice (a double click, a retry after
    # an error page) makes one upload, not two (services/upload.py: create_studies_once).
    upload_token = forms.CharField(required=False, max_length=128, widget=forms.HiddenInput)

    PATIENT_FIELDS = ("patient_name", "patient_id", "accession_number")
    EXTERNAL_FIELDS = ("candidate_text", "samples_text", "samples_file", "candidate_temperature",
                       "sample_temperature", "generator_name")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("upload_token", uuid.uuid4().hex)

    def basic_fields(self):
        return [field for field in self.visible_fields()
                if field.name not in self.EXTERNAL_FIELDS + self.PATIENT_FIELDS]

    def patient_fields(self):
        return [field for field in self if field.name in self.PATIENT_FIELDS]

    def external_fields(self):
        return [field for field in self if field.name in self.EXTERNAL_FIELDS]

    @property
    def external_given(self) -> bool:
        given = any(self.data.get(name) for name in self.EXTERNAL_FIELDS)
        return given or "samples_file" in self.files
