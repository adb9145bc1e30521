"""The docs the site links are served by the site: every doc of docs/ has its page under
/developers/docs/, and every link of the developer pages, the OpenAPI overview and the AsyncAPI
document leads to a page that answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from frontend import developer_docs

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parent.parent / "docs"


def links_in(html: str) -> set[str]:
    return {href for href in re.findall(r'href="([^"]+)"', html) if href.startswith("/")}


def markdown_links(text: str) -> set[str]:
    return {href for href in re.findall(r"\]\((/[^)\s]*)\)", text)}


def test_every_doc_is_served_with_its_title(client):
    names = sorted(path.stem for path in DOCS.glob("*.md"))
    assert names and developer_docs.names() == names
    index = client.get("/developers/docs/").content.decode()
    for name in names:
        answer = client.get(f"/developers/docs/{name}/")
        assert answer.status_code == 200, name
        assert developer_docs.title_of(name) in answer.content.decode()
        assert f'href="/developers/docs/{name}/"' in index


def test_a_doc_s_links_to_other_docs_lead_to_their_pages(client):
    html = client.get("/developers/docs/api/").content.decode()
    assert 'href="/developers/docs/fair-play/"' in html  # written as docs/fair-play.md in the doc
    assert ".md\"" not in html


@pytest.mark.parametrize("name", ["nothing", "..", "API", "api.md", "../README"])
def test_a_name_that_is_no_doc_is_not_found(client, name):
    assert client.get(f"/developers/docs/{name}/").status_code == 404


def test_markup_in_a_doc_is_shown_as_text(settings, tmp_path, client):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# X\n\n<script>alert(1)</script>\n")
    settings.BASE_DIR = tmp_path
    html = client.get("/developers/docs/x/").content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;" in html


def test_every_link_of_the_developer_docs_answers(client):
    """The links of /developers/, of every served doc, of the OpenAPI overview and of the AsyncAPI
    document: each same-site link answers (200, or the redirect of a page that asks for a sign-in)."""
    pages = ["/developers/", "/developers/docs/", *(f"/developers/docs/{name}/" for name in developer_docs.names())]
    links = set()
    for page in pages:
        links |= links_in(client.get(page).content.decode())
    overview = client.get("/api/schema/?format=json").json()["info"]["description"]
    links |= markdown_links(overview)
    links |= markdown_links(json.dumps(client.get("/api/asyncapi.json").json()))
    broken = []
    for link in sorted(links):
        path = link.split("#")[0]
        if path.startswith("/static/"):
            continue
        status = client.get(path).status_code
        if status not in (200, 302):
            broken.append(f"{link}: {status}")
    assert broken == []
    assert "/developers/docs/streams/" in links and "/developers/docs/websocket/" in links
