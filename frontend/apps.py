"""App config for the web front end: page views, templates and static files."""

from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
