"""URLs of the ndjson streams."""

urlpatterns: list = []
