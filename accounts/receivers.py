"""Whatever path saves a player's new password or deactivates them (the services, the admin's password
form and its Active box, `manage.py changepassword`, a shell), their API token and open sockets follow."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from accounts.services import sign_ins_changed


@receiver(post_save, sender=User, dispatch_uid="accounts.sign_ins_follow_the_account")
def sign_ins_follow_the_account(sender, instance: User, created: bool, **kwargs) -> None:
    if created:
        return
    # `_password` holds the new password until the save that stores it; Django clears it for the
    # rehash of a login (a new hasher), which is no change of password.
    if instance._password is not None:
        # Sessions end by themselves (their hash is of the password); a token would not, so whoever
        # held it (the reason for a change or a reset, often) would keep the account.
        Token.objects.filter(user=instance).delete()
        sign_ins_changed(instance)
    elif not instance.is_active:
        # Requests already refuse an inactive player; an open socket is told to look again.
        sign_ins_changed(instance)
