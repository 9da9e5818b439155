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
        required=False, label="Report", strip=False, widget=forms.Textarea(attrs={"rows": 10}),
        help_text="Paste the report here if you have no file for it. Leave empty to have one drafted.",
    )
    has_prior = forms.BooleanField(
        required=False, label="A prior exam is available for comparison",
    )
