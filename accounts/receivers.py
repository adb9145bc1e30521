"""Whatever path deactivates a player (closing the account, the admin's Active box, a shell), their open
sockets follow. (A new password's are followed by accounts.validators.SignInsFollowThePassword.)"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.services import sign_ins_changed


@receiver(post_save, sender=User, dispatch_uid="accounts.sign_ins_follow_the_account")
def sign_ins_follow_the_account(sender, instance: User, created: bool, **kwargs) -> None:
    if created:
        return
    if not instance.is_active:
        # Requests already refuse an inactive player; an open socket is told to look again.
        sign_ins_changed(instance)
