"""The settings page's form: the user's single-key shortcuts."""
from __future__ import annotations

from django import forms

from . import shortcuts


class ShortcutsForm(forms.Form):
    on = forms.BooleanField(
        required=False, label="Single-key shortcuts on",
        help_text="Off: letters and digits do nothing on the review page and in the viewer; "
                  "Tab, Enter and the arrow keys on a focused sentence or image still work.")

    def __init__(self, *args, user, **kwargs):
        current = shortcuts.of(user)
        kwargs.setdefault("initial", {"on": current.on, **current.keys})
        super().__init__(*args, **kwargs)
        for name, default, label in shortcuts.ACTIONS:
            self.fields[name] = forms.CharField(
                label=label, max_length=1, strip=False,
                help_text=f"Default: {default}",
                widget=forms.TextInput(attrs={"size": 2, "autocomplete": "off"}))

    def clean(self):
        data = super().clean()
        taken: dict[str, str] = {}
        for name, _, label in shortcuts.ACTIONS:
            key = (data.get(name) or "").lower()
            if not key:
                continue
            if key.isspace() or not key.isprintable():
                self.add_error(name, "Choose a letter, a digit or a sign.")
            elif key in taken:
                self.add_error(name, f"“{key}” already does: {taken[key]}.")
            else:
                taken[key] = label
                data[name] = key
        return data

    def save(self, user) -> None:
        data = self.cleaned_data
        user.shortcuts_on = data["on"]
        # Only the keys that differ from the defaults: a later default change reaches everyone else.
        user.shortcut_keys = {name: data[name] for name, default, _ in shortcuts.ACTIONS
                              if data[name] != default}
        user.save(update_fields=["shortcuts_on", "shortcut_keys"])
