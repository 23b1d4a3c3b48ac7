#pragma once

#include "domain/observation/ElementFacts.h"

#include <QList>

namespace veetbot {

// Whether a page asks its visitor to sign in, read from the facts of the elements a bounded
// observation saw (never their values): a password or one-time-code field, or a field that
// asks for the account's name (autocomplete "username" or "webauthn"), the first step of a
// sign-in form. Device verification decides with it, and task runs will meet sign-in walls
// with it. A visible CAPTCHA frame (PageEvidence) is a challenge too; the badge of an invisible
// reCAPTCHA is not. Site-independent: it knows nothing of any website's pages.
bool showsSignInChallenge(const QList<ElementFacts> &elements, const PageEvidence &page = {});

} // namespace veetbot
