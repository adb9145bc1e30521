# The FreeCell Online web image: Daphne serving HTTP and websockets, static files by whitenoise.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY freecell_site ./freecell_site
COPY games ./games
COPY accounts ./accounts
COPY frontend ./frontend
COPY manage.py ./
# The docs the site serves at /developers/docs/ (frontend/developer_docs.py).
COPY docs ./docs
RUN pip install --no-cache-dir . && DEBUG=0 SECRET_KEY=build-only python manage.py collectstatic --noinput
RUN useradd --create-home freecell
USER freecell
EXPOSE 8000
# The options are freecell_site/serving.py's (tests/test_hostile.py checks that they agree).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--websocket-max-message-size", "16384", "--websocket-max-frame-size", "16384", "--websocket_connect_timeout", "5", "freecell_site.asgi:application"]
