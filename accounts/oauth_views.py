"""The OAuth endpoints (docs/tokens.md, "Apps of other developers"): `/oauth/authorize/`, the consent page a signed-in player
answers, and `/oauth/token/`, where an app trades its code and PKCE verifier for a token of ours."""

from __future__ import annotations

import json

from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse, JsonResponse
from oauth2_provider import views as dot
from oauth2_provider.models import get_application_model

from accounts import services
from accounts.guests import is_guest
from accounts.oauth import acceptable_redirect_uri, origin_of, token_lifetime
from accounts.scopes import DESCRIPTIONS
from freecell_site.csp import POLICY


class AuthorizeView(dot.AuthorizationView):
    """django-oauth-toolkit's consent page in the site's look: the app's name, the scopes it asks in
    the players' words, where the answer goes, and Allow / Deny. A visitor signs in first
    (LOGIN_URL, coming back here)."""

    template_name = "accounts/oauth_authorize.html"

    def dispatch(self, request, *args, **kwargs):
        if is_guest(request.user):
            # A guest holds no tokens (accounts/guests.py): signing in or up comes first, and the sign-in
            # page comes back here (where the guest's games become the account's).
            return redirect_to_login(request.get_full_path())
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form):
        # The form's fields come back from the browser: a client_id the GET never saw has no
        # Application, which django-oauth-toolkit would look up unguarded.
        if not get_application_model().objects.filter(client_id=form.cleaned_data["client_id"]).exists():
            return self.refused("invalid_request", "this app's request was changed on its way: start again from the app")
        if form.cleaned_data.get("nonce") or form.cleaned_data.get("claims"):  # OpenID Connect's, not served here
            return self.refused("invalid_request", "this app's request was changed on its way: start again from the app")
        return super().form_valid(form)

    def form_invalid(self, form):
        return self.refused("invalid_request", "the answer lacks some of the app's request: start again from the app")

    def refused(self, code: str, description: str):
        return self.render_to_response({"error": {"error": code, "description": description}}, status=400)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        scopes = context.get("scopes") or []
        context.update(
            page="oauth",
            asked=[(scope, DESCRIPTIONS.get(scope, scope)) for scope in scopes],
            lifetime_days=token_lifetime().days,
            full=services.live_tokens(self.request.user).count() >= services.MAX_TOKENS,
            max_tokens=services.MAX_TOKENS,
        )
        return context

    def render_to_response(self, context, **kwargs):
        response = super().render_to_response(context, **kwargs)
        redirect_uri = context.get("redirect_uri")
        if acceptable_redirect_uri(redirect_uri):
            # The answer leaves this site by a redirect after the form is sent, which the site's
            # `form-action 'self'` would block: this page lets the form go to the app's address.
            response["Content-Security-Policy"] = POLICY.replace("form-action 'self'", f"form-action 'self' {origin_of(redirect_uri)}")
        return response


#: What an error of the token endpoint means, for those oauthlib leaves without a description.
TOKEN_ERRORS = {
    "unsupported_grant_type": "grant_type must be authorization_code, sent in a form-encoded body (application/x-www-form-urlencoded)",
    "invalid_client": "client_id must be the one the code was given to",
    "invalid_grant": "the code is wrong, expired (2 minutes) or already traded, or the code_verifier is not the one of its code_challenge",
    "invalid_request": "a parameter is missing or repeated: grant_type, code, code_verifier, redirect_uri and client_id are needed",
}


class TokenView(dot.TokenView):
    """django-oauth-toolkit's token endpoint, answering RFC 6749's JSON: the token made is one of ours
    (accounts.oauth.AnyPublicClient.save_bearer_token), which django-oauth-toolkit's own bookkeeping
    after a success (a lookup in its token table) would not find; an error gets a description when
    oauthlib gives none."""

    def post(self, request, *args, **kwargs):
        _, headers, body, status = self.create_token_response(request)
        if status != 200:
            answer = json.loads(body)
            if not answer.get("error_description") and answer.get("error") in TOKEN_ERRORS:
                answer["error_description"] = TOKEN_ERRORS[answer["error"]]
            body = json.dumps(answer)
        response = HttpResponse(content=body, status=status, content_type="application/json")
        for name, value in headers.items():
            response[name] = value
        return response

    def http_method_not_allowed(self, request, *args, **kwargs):
        answer = {"error": "invalid_request", "error_description": "POST the form to /oauth/token/ to trade a code for a token"}
        return JsonResponse(answer, status=405, headers={"Allow": "POST"})
