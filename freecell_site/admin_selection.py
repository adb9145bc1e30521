"""The admin's actions run on well-formed row ids only: Django's stock change list fails on a forged
selection (`abc` for a game's number)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError


class CheckedSelection:
    """Mixed into every ModelAdmin of the site (the project's and the re-registered stock ones)."""

    def response_action(self, request, queryset):
        field = self.model._meta.pk
        try:
            for value in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
                field.run_validators(field.to_python(value))
        except ValidationError:
            self.message_user(request, "Those rows do not exist: choose them in the list.", messages.WARNING)
            return None  # the change list is shown again
        return super().response_action(request, queryset)
