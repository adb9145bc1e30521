"""System checks of accounts: `check --deploy` flags mail that would go to the log."""

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
