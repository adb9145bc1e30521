"""System checks of accounts: `check --deploy` flags mail that would go to the log, and reset links on
the development site address."""

from django.conf import settings
from django.core.checks import Tags, Warning, register

CONSOLE_MAIL = "django.core.mail.backends.console.EmailBackend"


@register(Tags.security, deploy=True)
def reset_mail_is_sent(app_configs, **kwargs):
    if settings.EMAIL_BACKEND != CONSOLE_MAIL:
        return []
    return [
        Warning(
            "EMAIL_BACKEND is the console backend: password-reset mails, with their links, go to the "
            "server's log (anyone who reads it can take over the account) and reach no player.",
            hint="Set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST, EMAIL_PORT, "
            "EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS.",
            id="accounts.W001",
        )
    ]


DEV_SITE_URL = "http://127.0.0.1:8000"


@register(Tags.security, deploy=True)
def reset_links_name_the_site(app_configs, **kwargs):
    """Reset links are built on SITE_URL (accounts/views.py, reset_link), never on the request's Host."""
    if settings.SITE_URL != DEV_SITE_URL and settings.SITE_URL.startswith("https://"):
        return []
    return [
        Warning(
            f"SITE_URL is {settings.SITE_URL!r}: password-reset links are built on it, so they would send "
            "players to the development address, or over plain HTTP.",
            hint="Set SITE_URL to the site's public https:// address, such as https://freecell.example.",
            id="accounts.W002",
        )
    ]
