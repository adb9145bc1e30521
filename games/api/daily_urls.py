"""URLs of the daily API (filled in by its issue)."""

urlpatterns: list = []
