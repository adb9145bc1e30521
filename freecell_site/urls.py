"""The site's URLs: admin, health, API (with its schema, docs and the websockets' AsyncAPI document) and the pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.admin import admin_login
from freecell_site.asyncapi import asyncapi_document
from freecell_site.health import healthz

urlpatterns = [
    path("admin/login/", admin_login),  # before the admin's own: counted like every login
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/asyncapi.json", asyncapi_document, name="asyncapi"),
    path("oauth/", include("accounts.oauth_urls")),
    path("api/", include("accounts.urls")),
    path("api/", include("games.api.urls")),
    path("", include("frontend.urls")),
]
