from django import forms


class CalibrationRunForm(forms.Form):
    file = forms.FileField(
        # An empty file is refused by the service, with the file's name.
        label="Calibration file (JSON lines)", allow_empty_file=True,
        help_text="Raw lines {id, candidate, samples, ground_truth} or pre-scored lines "
                  "{id, n_samples, sentences: [{text, support, factual, category?}]}.",
    )
    alpha = forms.FloatField(
        label="α (the risk to control: the share of all sentences that are true and flagged)",
        initial=0.1,
        min_value=0.0001, max_value=0.9999, widget=forms.NumberInput(attrs={"step": "any"}),
    )
    target_report_rate = forms.FloatField(
        label="Target share of reports flagged (for λ2)", initial=0.15, required=False,
        min_value=0.0, max_value=1.0, widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="Leave empty to choose no λ2 (the default λ2 then applies).",
    )
    per_category = forms.BooleanField(required=False, label="Also choose λ1 per finding category")


class CombinationFitForm(forms.Form):
    # Shown on the page of the run form, which has an α of its own: ids and names stay apart.
    prefix = "combination"

    alpha = forms.FloatField(
        label="α (the risk to control: the share of true sentences the combination flags)",
        initial=0.1, min_value=0.0001, max_value=0.9999,
        widget=forms.NumberInput(attrs={"step": "any"}),
    )
