"""WSGI entry point (HTTP only; websockets need the ASGI application under Daphne)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
application = get_wsgi_application()
