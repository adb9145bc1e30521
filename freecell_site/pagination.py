"""Page-number pagination for every list, with a client-chosen page size up to a limit."""

from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.utils.urls import remove_query_param, replace_query_param

from freecell_site.errors import ServiceError

MAX_PAGE_SIZE = 200
DEFAULT_PAGE_SIZE = 50

#: The paging parameters of every list, for views that declare their schema by hand.
PAGING = [
    OpenApiParameter(
        "page", {"type": "integer", "minimum": 1}, description="1-based page number (default 1); `last` is taken too, for the last page"
    ),
    OpenApiParameter(
        "page_size",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        description=f"entries per page, 1 to {MAX_PAGE_SIZE} (default {DEFAULT_PAGE_SIZE})",
    ),
]


class Pagination(PageNumberPagination):
    """DRF's pages with the rules every list of the API follows (the daily's lists check the same):
    `page` a whole number from 1 (or `last`) and `page_size` from 1 to 200, else 400 `invalid_request`
    (DRF would answer 404 "Invalid page." for the one and quietly use the default for the other); a
    page past the last is 404 `not_found`, except page 1 of an empty list."""

    page_size_query_param = "page_size"
    page_size = DEFAULT_PAGE_SIZE
    max_page_size = MAX_PAGE_SIZE

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param, "1")
        if raw in self.last_page_strings:
            return paginator.num_pages
        return whole_number(request, self.page_query_param, 1)

    def get_page_size(self, request):
        return whole_number(request, self.page_size_query_param, self.page_size, high=self.max_page_size)


def whole_number(request, name: str, default: int, *, high: int | None = None) -> int:
    """The query parameter `name`: a whole number from 1 (to `high`), `default` when absent; given
    empty (`?page=`) it is refused like any other value that is no whole number."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    value = int(raw) if raw.isascii() and raw.isdigit() else 0
    if value < 1 or (high is not None and value > high):
        bounds = f"from 1 to {high}" if high is not None else "from 1"
        raise ValidationError({name: [f"{name} must be a whole number {bounds}"]})
    return value


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


def page_asked(request) -> tuple[int | None, int]:
    """`page` as asked, before the list's length is known (None for `last`, which the length decides),
    and `page_size`; 400 invalid_request when either is no whole number in its bounds."""
    size = whole_number(request, "page_size", DEFAULT_PAGE_SIZE, high=MAX_PAGE_SIZE)
    page = None if request.query_params.get("page") == "last" else whole_number(request, "page", 1)
    return page, size


def page_bounds(request, total: int) -> tuple[int, int]:
    """`page` (from 1, or `last`) and `page_size` of a list of `total` rows, by the rules of every
    list (freecell_site/pagination.py): a page past the last is 404; page 1 of an empty list is empty."""
    asked, size = page_asked(request)
    last = max(1, -(-total // size))
    page = last if asked is None else asked
    if page > last:
        raise ServiceError("not_found", f"there is no page {page}: the last is {last}", status=404)
    return page, size


def page_links(request, page: int, size: int, total: int) -> tuple[str | None, str | None]:
    """The `next` and `previous` addresses of page `page` of `total` rows, `page_size` a page."""
    url = request.build_absolute_uri()
    nxt = replace_query_param(url, "page", page + 1) if page * size < total else None
    if page <= 1:
        prev = None
    elif page == 2:
        prev = remove_query_param(url, "page")
    else:
        prev = replace_query_param(url, "page", page - 1)
    return nxt, prev
