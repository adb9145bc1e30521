"""Page-number pagination for every list, with a client-chosen page size up to a limit."""

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200


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
