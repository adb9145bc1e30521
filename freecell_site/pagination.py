"""Page-number pagination for every list, with a client-chosen page size up to a limit."""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """DRF's pages; a `page` that is not a whole number from 1 is a 400 `invalid_request`, as on the
    leaderboard (DRF answers it 404 "Invalid page."); a page past the last stays a 404 `not_found`."""

    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param) or "1"
        if raw in self.last_page_strings:
            return raw
        if not (raw.isascii() and raw.isdigit() and int(raw) >= 1):
            raise ValidationError({"page": ["page must be a whole number from 1"]})
        return raw


def paginated(item_serializer, name: str):
    """The schema of a page of `item_serializer` rows, for views that paginate by hand."""
    return inline_serializer(
        name=name,
        fields={
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item_serializer(many=True),
        },
    )
