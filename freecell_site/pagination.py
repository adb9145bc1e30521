"""Page-number pagination for every list, with a client-chosen page size up to a limit."""

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200
