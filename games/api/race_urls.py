"""URLs of the race API (filled in by its issue)."""

urlpatterns: list = []
