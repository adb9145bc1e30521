"""The admin's view of OAuth: the apps players have met (django-oauth-toolkit's Application rows, made
on first sight of a `client_id`), with the site's checked selection. Its other tables stay out of the
admin: codes live two minutes, and its own tokens are never issued here (an app's token is an
AccessToken of ours, in the admin with the others)."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin

from freecell_site.admin_selection import CheckedSelection

for model in apps.get_app_config("oauth2_provider").get_models():
    if not admin.site.is_registered(model):
        continue
    stock = type(admin.site.get_model_admin(model))
    admin.site.unregister(model)
    if model._meta.model_name == "application":
        admin.site.register(model, type(f"Checked{stock.__name__}", (CheckedSelection, stock), {}))
