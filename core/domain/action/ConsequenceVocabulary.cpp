// The consequence vocabulary, as data: the English phrases, every other language's (generated
// from translation catalogs, and kept by hand), the routine words and roles, the lookalike
// letters; and matching a text's words against it (ConsequenceDetail.h).

#include "ConsequenceDetail.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <span>

namespace veetbot::ConsequenceDetail {

namespace {

using C = BrowserActionConsequence;

struct VocabularyEntry
{
    const char *phrase;
    Category category;
    C consequence;
};

// A word in another language: its language (a BCP 47 tag), the English word it translates
// ("save", "log out"), the phrase, lower case, and the consequence it names.
struct TranslatedEntry
{
    const char *language;
    const char *english;
    const char *phrase;
    C consequence;
};

// The English vocabulary. Matching is on whole words after normalisation; a phrase matches its
// words in a row, and also written as one word ("deleteaccount"). The last word of an entry
// also matches with a trailing "s". Other languages are kGeneratedVocabulary and
// kHandKeptVocabulary below.
constexpr VocabularyEntry kVocabulary[] = {
    // Payment: money leaves, or a way to pay is added.
    {"pay", Category::Consequence, C::Payment},
    {"pay now", Category::Consequence, C::Payment},
    {"payment", Category::Consequence, C::Payment},
    {"payment method", Category::Consequence, C::Payment},
    {"make a payment", Category::Consequence, C::Payment},
    {"card number", Category::Consequence, C::Payment},
    {"credit card", Category::Consequence, C::Payment},
    {"debit card", Category::Consequence, C::Payment},
    {"add card", Category::Consequence, C::Payment},
    {"billing", Category::Consequence, C::Payment},
    {"send money", Category::Consequence, C::Payment},
    {"transfer", Category::Consequence, C::Payment},
    {"transfer money", Category::Consequence, C::Payment},
    {"transfer funds", Category::Consequence, C::Payment},
    {"wire", Category::Consequence, C::Payment},
    {"wire transfer", Category::Consequence, C::Payment},
    {"donate", Category::Consequence, C::Payment},
    {"donation", Category::Consequence, C::Payment},
    {"top up", Category::Consequence, C::Payment},
    {"refund", Category::Consequence, C::Payment},
    {"withdraw", Category::Consequence, C::Payment},
    {"withdrawal", Category::Consequence, C::Payment},
    {"deposit", Category::Consequence, C::Payment},
    {"cash out", Category::Consequence, C::Payment},
    {"cvv", Category::Consequence, C::Payment},
    {"cvc", Category::Consequence, C::Payment},
    {"iban", Category::Consequence, C::Payment},
    {"bank account", Category::Consequence, C::Payment},
    {"routing number", Category::Consequence, C::Payment},
    // Purchase: an order, a booking or a subscription is made.
    {"buy", Category::Consequence, C::Purchase},
    {"buy now", Category::Consequence, C::Purchase},
    {"purchase", Category::Consequence, C::Purchase},
    {"order", Category::Consequence, C::Purchase},
    {"place order", Category::Consequence, C::Purchase},
    {"place your order", Category::Consequence, C::Purchase},
    {"order now", Category::Consequence, C::Purchase},
    {"complete order", Category::Consequence, C::Purchase},
    {"confirm order", Category::Consequence, C::Purchase},
    {"checkout", Category::Consequence, C::Purchase},
    {"check out", Category::Consequence, C::Purchase},
    {"add to cart", Category::Consequence, C::Purchase},
    {"add to basket", Category::Consequence, C::Purchase},
    {"add to bag", Category::Consequence, C::Purchase},
    {"cart", Category::Consequence, C::Purchase},
    {"basket", Category::Consequence, C::Purchase},
    {"subscribe", Category::Consequence, C::Purchase},
    {"subscription", Category::Consequence, C::Purchase},
    {"upgrade", Category::Consequence, C::Purchase},
    {"rent", Category::Consequence, C::Purchase},
    {"book now", Category::Consequence, C::Purchase},
    {"book a", Category::Consequence, C::Purchase},
    {"reserve", Category::Consequence, C::Purchase},
    {"reservation", Category::Consequence, C::Purchase},
    {"preorder", Category::Consequence, C::Purchase},
    {"pre order", Category::Consequence, C::Purchase},
    {"free trial", Category::Consequence, C::Purchase},
    {"start trial", Category::Consequence, C::Purchase},
    {"renew", Category::Consequence, C::Purchase},
    {"bid", Category::Consequence, C::Purchase},
    {"place bid", Category::Consequence, C::Purchase},
    // Ending a subscription changes what is paid for, like starting one.
    {"unsubscribe", Category::Consequence, C::Purchase},
    {"cancel subscription", Category::Consequence, C::Purchase},
    {"cancel membership", Category::Consequence, C::Purchase},
    {"cancel plan", Category::Consequence, C::Purchase},
    // Account recovery: a way back into an account.
    {"forgot", Category::Consequence, C::AccountRecovery},
    {"forgotten", Category::Consequence, C::AccountRecovery},
    {"forgot password", Category::Consequence, C::AccountRecovery},
    {"forgot your password", Category::Consequence, C::AccountRecovery},
    {"lost password", Category::Consequence, C::AccountRecovery},
    {"reset password", Category::Consequence, C::AccountRecovery},
    {"reset your password", Category::Consequence, C::AccountRecovery},
    {"password reset", Category::Consequence, C::AccountRecovery},
    {"recover", Category::Consequence, C::AccountRecovery},
    {"recovery", Category::Consequence, C::AccountRecovery},
    {"account recovery", Category::Consequence, C::AccountRecovery},
    {"recovery code", Category::Consequence, C::AccountRecovery},
    {"recovery email", Category::Consequence, C::AccountRecovery},
    {"recovery phone", Category::Consequence, C::AccountRecovery},
    {"backup code", Category::Consequence, C::AccountRecovery},
    {"unlock account", Category::Consequence, C::AccountRecovery},
    {"restore account", Category::Consequence, C::AccountRecovery},
    {"trouble signing in", Category::Consequence, C::AccountRecovery},
    {"can't sign in", Category::Consequence, C::AccountRecovery},
    {"cannot sign in", Category::Consequence, C::AccountRecovery},
    // Credential change: a password, passkey or second factor.
    {"password", Category::Consequence, C::CredentialChange},
    {"change password", Category::Consequence, C::CredentialChange},
    {"update password", Category::Consequence, C::CredentialChange},
    {"new password", Category::Consequence, C::CredentialChange},
    {"set password", Category::Consequence, C::CredentialChange},
    {"passcode", Category::Consequence, C::CredentialChange},
    {"passphrase", Category::Consequence, C::CredentialChange},
    {"passkey", Category::Consequence, C::CredentialChange},
    {"pin", Category::Consequence, C::CredentialChange},
    {"change pin", Category::Consequence, C::CredentialChange},
    {"two-factor", Category::Consequence, C::CredentialChange},
    {"two-step", Category::Consequence, C::CredentialChange},
    {"2-step", Category::Consequence, C::CredentialChange},
    {"multi-factor", Category::Consequence, C::CredentialChange},
    {"2fa", Category::Consequence, C::CredentialChange},
    {"mfa", Category::Consequence, C::CredentialChange},
    {"2sv", Category::Consequence, C::CredentialChange},
    {"otp", Category::Consequence, C::CredentialChange},
    {"totp", Category::Consequence, C::CredentialChange},
    {"authenticator", Category::Consequence, C::CredentialChange},
    {"security key", Category::Consequence, C::CredentialChange},
    {"one-time code", Category::Consequence, C::CredentialChange},
    {"verification code", Category::Consequence, C::CredentialChange},
    {"credential", Category::Consequence, C::CredentialChange},
    // Security settings: sessions, keys, tokens, the security pages themselves.
    {"security", Category::Consequence, C::SecuritySettings},
    {"privacy", Category::Consequence, C::SecuritySettings},
    {"privacy settings", Category::Consequence, C::SecuritySettings},
    {"api key", Category::Consequence, C::SecuritySettings},
    {"api token", Category::Consequence, C::SecuritySettings},
    {"access token", Category::Consequence, C::SecuritySettings},
    {"token", Category::Consequence, C::SecuritySettings},
    {"session", Category::Consequence, C::SecuritySettings},
    {"sign out everywhere", Category::Consequence, C::SecuritySettings},
    {"sign out of all", Category::Consequence, C::SecuritySettings},
    {"log out everywhere", Category::Consequence, C::SecuritySettings},
    {"log out of all", Category::Consequence, C::SecuritySettings},
    {"trusted device", Category::Consequence, C::SecuritySettings},
    {"login activity", Category::Consequence, C::SecuritySettings},
    {"ssh key", Category::Consequence, C::SecuritySettings},
    {"gpg key", Category::Consequence, C::SecuritySettings},
    {"encryption", Category::Consequence, C::SecuritySettings},
    {"webhook", Category::Consequence, C::SecuritySettings},
    {"firewall", Category::Consequence, C::SecuritySettings},
    {"allowlist", Category::Consequence, C::SecuritySettings},
    // Permission change: who may see or do what.
    {"permission", Category::Consequence, C::PermissionChange},
    {"grant", Category::Consequence, C::PermissionChange},
    {"grant access", Category::Consequence, C::PermissionChange},
    {"revoke", Category::Consequence, C::PermissionChange},
    {"authorize", Category::Consequence, C::PermissionChange},
    {"authorise", Category::Consequence, C::PermissionChange},
    {"allow", Category::Consequence, C::PermissionChange},
    {"manage access", Category::Consequence, C::PermissionChange},
    {"request access", Category::Consequence, C::PermissionChange},
    {"access control", Category::Consequence, C::PermissionChange},
    {"share with", Category::Consequence, C::PermissionChange},
    {"sharing", Category::Consequence, C::PermissionChange},
    {"invite", Category::Consequence, C::PermissionChange},
    {"add member", Category::Consequence, C::PermissionChange},
    {"add user", Category::Consequence, C::PermissionChange},
    {"add people", Category::Consequence, C::PermissionChange},
    {"collaborator", Category::Consequence, C::PermissionChange},
    {"make admin", Category::Consequence, C::PermissionChange},
    {"make owner", Category::Consequence, C::PermissionChange},
    {"transfer ownership", Category::Consequence, C::PermissionChange},
    {"role", Category::Consequence, C::PermissionChange},
    {"connected app", Category::Consequence, C::PermissionChange},
    {"link account", Category::Consequence, C::PermissionChange},
    {"block", Category::Consequence, C::PermissionChange},
    {"unblock", Category::Consequence, C::PermissionChange},
    {"ban", Category::Consequence, C::PermissionChange},
    // Legal acceptance: terms, consent, signatures.
    {"agree", Category::Consequence, C::LegalAcceptance},
    {"i agree", Category::Consequence, C::LegalAcceptance},
    {"accept", Category::Consequence, C::LegalAcceptance},
    {"accept all", Category::Consequence, C::LegalAcceptance},
    {"accept terms", Category::Consequence, C::LegalAcceptance},
    {"terms", Category::Consequence, C::LegalAcceptance},
    {"terms of service", Category::Consequence, C::LegalAcceptance},
    {"terms of use", Category::Consequence, C::LegalAcceptance},
    {"terms and conditions", Category::Consequence, C::LegalAcceptance},
    {"conditions", Category::Consequence, C::LegalAcceptance},
    {"privacy policy", Category::Consequence, C::LegalAcceptance},
    {"consent", Category::Consequence, C::LegalAcceptance},
    {"eula", Category::Consequence, C::LegalAcceptance},
    {"agreement", Category::Consequence, C::LegalAcceptance},
    {"contract", Category::Consequence, C::LegalAcceptance},
    {"sign", Category::Consequence, C::LegalAcceptance},
    {"signature", Category::Consequence, C::LegalAcceptance},
    {"e-sign", Category::Consequence, C::LegalAcceptance},
    {"acknowledge", Category::Consequence, C::LegalAcceptance},
    {"i understand", Category::Consequence, C::LegalAcceptance},
    {"tos", Category::Consequence, C::LegalAcceptance},
    // Publication: something becomes visible to others or is sent.
    {"publish", Category::Consequence, C::Publication},
    {"post", Category::Consequence, C::Publication},
    {"repost", Category::Consequence, C::Publication},
    {"send", Category::Consequence, C::Publication},
    {"submit", Category::Consequence, C::Publication},
    {"submit review", Category::Consequence, C::Publication},
    {"write a review", Category::Consequence, C::Publication},
    {"tweet", Category::Consequence, C::Publication},
    {"retweet", Category::Consequence, C::Publication},
    {"reply", Category::Consequence, C::Publication},
    {"comment", Category::Consequence, C::Publication},
    {"share", Category::Consequence, C::Publication},
    {"message", Category::Consequence, C::Publication},
    {"forward", Category::Consequence, C::Publication},
    {"go live", Category::Consequence, C::Publication},
    {"broadcast", Category::Consequence, C::Publication},
    {"announce", Category::Consequence, C::Publication},
    {"upvote", Category::Consequence, C::Publication},
    {"downvote", Category::Consequence, C::Publication},
    {"vote", Category::Consequence, C::Publication},
    {"rsvp", Category::Consequence, C::Publication},
    // Destructive: something is deleted, closed, cancelled or reset.
    {"delete", Category::Consequence, C::Destructive},
    {"deletion", Category::Consequence, C::Destructive},
    {"delete account", Category::Consequence, C::Destructive},
    {"remove", Category::Consequence, C::Destructive},
    {"removal", Category::Consequence, C::Destructive},
    {"destroy", Category::Consequence, C::Destructive},
    {"erase", Category::Consequence, C::Destructive},
    {"wipe", Category::Consequence, C::Destructive},
    {"purge", Category::Consequence, C::Destructive},
    {"discard", Category::Consequence, C::Destructive},
    {"trash", Category::Consequence, C::Destructive},
    {"empty bin", Category::Consequence, C::Destructive},
    {"clear all", Category::Consequence, C::Destructive},
    {"clear data", Category::Consequence, C::Destructive},
    {"clear history", Category::Consequence, C::Destructive},
    {"close account", Category::Consequence, C::Destructive},
    {"close my account", Category::Consequence, C::Destructive},
    {"close your account", Category::Consequence, C::Destructive},
    {"close the account", Category::Consequence, C::Destructive},
    {"close this account", Category::Consequence, C::Destructive},
    {"deactivate", Category::Consequence, C::Destructive},
    {"disable", Category::Consequence, C::Destructive},
    {"terminate", Category::Consequence, C::Destructive},
    {"cancel order", Category::Consequence, C::Destructive},
    {"cancel booking", Category::Consequence, C::Destructive},
    {"cancel reservation", Category::Consequence, C::Destructive},
    {"cancel account", Category::Consequence, C::Destructive},
    {"cancel my", Category::Consequence, C::Destructive},
    {"unpublish", Category::Consequence, C::Destructive},
    {"uninstall", Category::Consequence, C::Destructive},
    {"reset", Category::Consequence, C::Destructive},
    {"factory reset", Category::Consequence, C::Destructive},
    {"drop", Category::Consequence, C::Destructive},
    {"leave group", Category::Consequence, C::Destructive},
    {"leave team", Category::Consequence, C::Destructive},
    {"kick", Category::Consequence, C::Destructive},
    {"overwrite", Category::Consequence, C::Destructive},
    {"void", Category::Consequence, C::Destructive},
    // Sign out: the owner's session on the website ends.
    {"sign out", Category::Consequence, C::SignOut},
    {"signout", Category::Consequence, C::SignOut},
    {"log out", Category::Consequence, C::SignOut},
    {"logout", Category::Consequence, C::SignOut},
    {"log off", Category::Consequence, C::SignOut},
    {"logoff", Category::Consequence, C::SignOut},
    // State change: something changes that the owner can change back. Blocking and banning
    // are permission changes (who may do what), above.
    {"undo", Category::Consequence, C::StateChange},
    {"redo", Category::Consequence, C::StateChange},
    {"revert", Category::Consequence, C::StateChange},
    {"rollback", Category::Consequence, C::StateChange},
    {"roll back", Category::Consequence, C::StateChange},
    {"restore", Category::Consequence, C::StateChange},
    {"move", Category::Consequence, C::StateChange},
    {"rename", Category::Consequence, C::StateChange},
    {"protect", Category::Consequence, C::StateChange},
    {"unprotect", Category::Consequence, C::StateChange},
    {"lock", Category::Consequence, C::StateChange},
    {"archive", Category::Consequence, C::StateChange},
    {"unarchive", Category::Consequence, C::StateChange},
    // Submission: the owner's input is sent or kept (publishing and sending are publication).
    {"save", Category::Consequence, C::Submission},
    {"save changes", Category::Consequence, C::Submission},
    {"confirm", Category::Consequence, C::Submission},
    {"apply", Category::Consequence, C::Submission},
    {"apply changes", Category::Consequence, C::Submission},
    // File transfer: files leave or enter the browser.
    {"upload", Category::Consequence, C::FileTransfer},
    {"download", Category::Consequence, C::FileTransfer},
    {"export", Category::Consequence, C::FileTransfer},
    {"import", Category::Consequence, C::FileTransfer},
    {"attach", Category::Consequence, C::FileTransfer},
    {"attachment", Category::Consequence, C::FileTransfer},
    {"choose file", Category::Consequence, C::FileTransfer},
    {"select file", Category::Consequence, C::FileTransfer},
    {"browse file", Category::Consequence, C::FileTransfer},
    {"add file", Category::Consequence, C::FileTransfer},
    {"share file", Category::Consequence, C::FileTransfer},
    {"send file", Category::Consequence, C::FileTransfer},
    {"drop file", Category::Consequence, C::FileTransfer},
    {"save as", Category::Consequence, C::FileTransfer},
    // Areas: administrative, authentication, pricing, messaging.
    {"admin", Category::Area, C::Unknown},
    {"administrator", Category::Area, C::Unknown},
    {"administration", Category::Area, C::Unknown},
    {"wp-admin", Category::Area, C::Unknown},
    {"manage", Category::Area, C::Unknown},
    {"management", Category::Area, C::Unknown},
    {"console", Category::Area, C::Unknown},
    {"dashboard", Category::Area, C::Unknown},
    {"settings", Category::Area, C::Unknown},
    {"setting", Category::Area, C::Unknown},
    {"preferences", Category::Area, C::Unknown},
    {"prefs", Category::Area, C::Unknown},
    {"config", Category::Area, C::Unknown},
    {"configuration", Category::Area, C::Unknown},
    {"control panel", Category::Area, C::Unknown},
    {"account", Category::Area, C::Unknown},
    {"my account", Category::Area, C::Unknown},
    {"login", Category::SignInArea, C::Unknown},
    {"log in", Category::SignInArea, C::Unknown},
    {"logon", Category::SignInArea, C::Unknown},
    {"log on", Category::SignInArea, C::Unknown},
    {"signin", Category::SignInArea, C::Unknown},
    {"sign in", Category::SignInArea, C::Unknown},
    {"sign on", Category::SignInArea, C::Unknown},
    {"signup", Category::SignInArea, C::Unknown},
    {"sign up", Category::SignInArea, C::Unknown},
    {"register", Category::SignInArea, C::Unknown},
    {"registration", Category::SignInArea, C::Unknown},
    {"oauth", Category::SignInArea, C::Unknown},
    {"oauth2", Category::SignInArea, C::Unknown},
    {"openid", Category::SignInArea, C::Unknown},
    {"sso", Category::SignInArea, C::Unknown},
    {"saml", Category::SignInArea, C::Unknown},
    {"auth", Category::SignInArea, C::Unknown},
    {"authentication", Category::SignInArea, C::Unknown},
    {"verify", Category::SignInArea, C::Unknown},
    {"verification", Category::SignInArea, C::Unknown},
    {"pricing", Category::Area, C::Unknown},
    {"price", Category::Area, C::Unknown},
    {"plan", Category::Area, C::Unknown},
    {"premium", Category::Area, C::Unknown},
    {"messages", Category::Area, C::Unknown},
    {"inbox", Category::Area, C::Unknown},
    {"outbox", Category::Area, C::Unknown},
    {"chat", Category::Area, C::Unknown},
    {"compose", Category::Area, C::Unknown},
    {"mail", Category::Area, C::Unknown},
    {"email", Category::Area, C::Unknown},
    {"dm", Category::Area, C::Unknown},
    {"conversation", Category::Area, C::Unknown},
    // Phrases that hold a consequential word in another sense.
    {"post code", Category::Neutral, C::Unknown},
    {"postal code", Category::Neutral, C::Unknown},
    {"post office", Category::Neutral, C::Unknown},
    {"sort order", Category::Neutral, C::Unknown},
    {"order by", Category::Neutral, C::Unknown},
    {"in order", Category::Neutral, C::Unknown},
    {"ascending order", Category::Neutral, C::Unknown},
    {"descending order", Category::Neutral, C::Unknown},
};

// Every other language's words: generated from the gettext catalogs of widely translated
// desktop software by scripts/gen-vocabulary.py (its header names the packages and versions;
// tst_vocabulary_drift regenerates it and compares), and kept by hand where no catalog carries
// a word.
constexpr TranslatedEntry kGeneratedVocabulary[] = {
#include "domain/action/vocabulary/GeneratedVocabulary.inc"
};
constexpr TranslatedEntry kHandKeptVocabulary[] = {
#include "domain/action/vocabulary/HandKept.inc"
};

// Ordinary navigation. A text is routine only when every word it reads as is one of these
// (or a number); a single other word makes it unknown.
constexpr const char *kRoutineWords[] = {
    "next",     "previous",    "prev",        "back",
    "continue", "search",      "find",        "go",
    "open",     "close",       "dismiss",     "show",
    "hide",     "more",        "less",        "all",
    "see",      "view",        "read",        "load",
    "expand",   "collapse",    "filter",      "filters",
    "sort",     "by",          "menu",        "details",
    "detail",   "overview",    "description", "specifications",
    "info",     "information", "page",        "top",
    "home",     "zoom",        "in",          "out",
    "up",       "down",        "left",        "right",
    "first",    "last",        "tab",         "list",
    "grid",     "of",          "the",         "to",
    "a",        "an",          "and",         "results",
    "skip",     "content",     "main",        "help",
    "refresh",  "reload",      "newer",       "older",
    "reviews",  "questions",   "answers",     "images",
    "photos",
};

// Roles an ordinary navigation control has.
constexpr const char *kRoutineRoles[] = {
    "button",  "link",     "tab",     "menuitem", "option", "treeitem", "searchbox",
    "textbox", "combobox", "listbox", "checkbox", "radio",  "switch",   "gridcell",
};

// Lookalikes read as Latin letters: Cyrillic, Greek and Armenian letters, Latin small capitals
// and IPA letters that a reader takes for a Latin letter. Applied after compatibility
// decomposition with the marks removed, before case folding (an uppercase letter may look
// like another Latin letter than its lowercase form).
constexpr std::pair<char16_t, char> kLookalikes[] = {
    // Cyrillic capitals
    {u'\u0405', 'S'},
    {u'\u0406', 'I'},
    {u'\u0408', 'J'},
    {u'\u0410', 'A'},
    {u'\u0412', 'B'},
    {u'\u0415', 'E'},
    {u'\u041A', 'K'},
    {u'\u041C', 'M'},
    {u'\u041D', 'H'},
    {u'\u041E', 'O'},
    {u'\u0420', 'P'},
    {u'\u0421', 'C'},
    {u'\u0422', 'T'},
    {u'\u0423', 'Y'},
    {u'\u0425', 'X'},
    {u'\u042C', 'b'},
    {u'\u0474', 'V'},
    {u'\u04AE', 'Y'},
    {u'\u04C0', 'l'},
    {u'\u050C', 'G'},
    {u'\u051A', 'Q'},
    {u'\u051C', 'W'},
    // Cyrillic small letters
    {u'\u0430', 'a'},
    {u'\u0432', 'b'},
    {u'\u0433', 'r'},
    {u'\u0435', 'e'},
    {u'\u043A', 'k'},
    {u'\u043C', 'm'},
    {u'\u043D', 'h'},
    {u'\u043E', 'o'},
    {u'\u043F', 'n'},
    {u'\u0440', 'p'},
    {u'\u0441', 'c'},
    {u'\u0442', 't'},
    {u'\u0443', 'y'},
    {u'\u0445', 'x'},
    {u'\u044C', 'b'},
    {u'\u0455', 's'},
    {u'\u0456', 'i'},
    {u'\u0458', 'j'},
    {u'\u0461', 'w'},
    {u'\u0475', 'v'},
    {u'\u04AF', 'y'},
    {u'\u04BB', 'h'},
    {u'\u04BD', 'e'},
    {u'\u04CF', 'l'},
    {u'\u0501', 'd'},
    {u'\u050D', 'g'},
    {u'\u051B', 'q'},
    {u'\u051D', 'w'},
    // Greek capitals
    {u'\u037F', 'J'},
    {u'\u0391', 'A'},
    {u'\u0392', 'B'},
    {u'\u0395', 'E'},
    {u'\u0396', 'Z'},
    {u'\u0397', 'H'},
    {u'\u0399', 'I'},
    {u'\u039A', 'K'},
    {u'\u039C', 'M'},
    {u'\u039D', 'N'},
    {u'\u039F', 'O'},
    {u'\u03A1', 'P'},
    {u'\u03A4', 'T'},
    {u'\u03A5', 'Y'},
    {u'\u03A7', 'X'},
    {u'\u03DC', 'F'},
    {u'\u03F9', 'C'},
    // Greek small letters
    {u'\u03B1', 'a'},
    {u'\u03B2', 'b'},
    {u'\u03B3', 'y'},
    {u'\u03B5', 'e'},
    {u'\u03B7', 'n'},
    {u'\u03B9', 'i'},
    {u'\u03BA', 'k'},
    {u'\u03BC', 'u'},
    {u'\u03BD', 'v'},
    {u'\u03BF', 'o'},
    {u'\u03C1', 'p'},
    {u'\u03C3', 'o'},
    {u'\u03C4', 't'},
    {u'\u03C5', 'u'},
    {u'\u03C7', 'x'},
    {u'\u03C9', 'w'},
    {u'\u03F1', 'p'},
    {u'\u03F2', 'c'},
    {u'\u03F3', 'j'},
    // Armenian capitals and small letters
    {u'\u053C', 'L'},
    {u'\u054D', 'U'},
    {u'\u054F', 'S'},
    {u'\u0555', 'O'},
    {u'\u0561', 'w'},
    {u'\u0563', 'q'},
    {u'\u0566', 'q'},
    {u'\u056C', 'l'},
    {u'\u0570', 'h'},
    {u'\u0578', 'n'},
    {u'\u057C', 'n'},
    {u'\u057D', 'u'},
    {u'\u0581', 'g'},
    {u'\u0584', 'f'},
    {u'\u0585', 'o'},
    // Latin small capitals
    {u'\u1D00', 'a'},
    {u'\u0299', 'b'},
    {u'\u1D04', 'c'},
    {u'\u1D05', 'd'},
    {u'\u1D06', 'd'},
    {u'\u1D07', 'e'},
    {u'\uA730', 'f'},
    {u'\u0262', 'g'},
    {u'\u029C', 'h'},
    {u'\u026A', 'i'},
    {u'\u1D0A', 'j'},
    {u'\u1D0B', 'k'},
    {u'\u029F', 'l'},
    {u'\u1D0C', 'l'},
    {u'\u1D0D', 'm'},
    {u'\u0274', 'n'},
    {u'\u1D0F', 'o'},
    {u'\u1D18', 'p'},
    {u'\uA7AF', 'q'},
    {u'\u0280', 'r'},
    {u'\uA731', 's'},
    {u'\u1D1B', 't'},
    {u'\u1D1C', 'u'},
    {u'\u1D20', 'v'},
    {u'\u1D21', 'w'},
    {u'\u028F', 'y'},
    {u'\u1D22', 'z'},
    {u'\u1D26', 'r'},
    {u'\u1D7B', 'i'},
    {u'\u1D7E', 'u'},
    // IPA letters (and the dotless i and j)
    {u'\u0131', 'i'},
    {u'\u0237', 'j'},
    {u'\u0251', 'a'},
    {u'\u0253', 'b'},
    {u'\u0255', 'c'},
    {u'\u0256', 'd'},
    {u'\u0257', 'd'},
    {u'\u0258', 'e'},
    {u'\u0259', 'e'},
    {u'\u025B', 'e'},
    {u'\u025F', 'j'},
    {u'\u0260', 'g'},
    {u'\u0261', 'g'},
    {u'\u0263', 'y'},
    {u'\u0266', 'h'},
    {u'\u0267', 'h'},
    {u'\u0268', 'i'},
    {u'\u0269', 'i'},
    {u'\u026B', 'l'},
    {u'\u026C', 'l'},
    {u'\u026D', 'l'},
    {u'\u026F', 'w'},
    {u'\u0271', 'm'},
    {u'\u0272', 'n'},
    {u'\u0273', 'n'},
    {u'\u0275', 'o'},
    {u'\u027C', 'r'},
    {u'\u027D', 'r'},
    {u'\u027E', 'r'},
    {u'\u0282', 's'},
    {u'\u0288', 't'},
    {u'\u0289', 'u'},
    {u'\u028B', 'u'},
    {u'\u0290', 'z'},
    {u'\u0291', 'z'},
    {u'\u029D', 'j'},
    {u'\u02A0', 'q'},
};

} // namespace

const QHash<char16_t, QChar> &lookalikes()
{
    static const QHash<char16_t, QChar> table = [] {
        QHash<char16_t, QChar> t;
        for (const auto &[from, to] : kLookalikes)
            t.insert(from, QChar::fromLatin1(to));
        return t;
    }();
    return table;
}

namespace {

// ---------------------------------------------------------------- vocabulary

struct Entry
{
    QStringList words;
    Category category;
    C consequence;
};

// Scripts written without spaces between words (Chinese, Japanese, Thai) and Korean, whose
// words take their endings without a space ("저장하기"): there a vocabulary phrase is also
// looked for inside a run of letters.
bool isSpacelessScript(QChar::Script script)
{
    switch (script) {
    case QChar::Script_Han:
    case QChar::Script_Hiragana:
    case QChar::Script_Katakana:
    case QChar::Script_Thai:
    case QChar::Script_Hangul:
        return true;
    default:
        return false;
    }
}

bool hasSpacelessLetter(QStringView word)
{
    for (const char32_t c : word.toUcs4()) {
        if (isSpacelessScript(QChar::script(c)))
            return true;
    }
    return false;
}

// A phrase of a spaceless script, looked for inside words.
struct SpacelessEntry
{
    QString text; // the phrase's words joined
    C consequence;
};

// Shorter phrases (one Han character, one Thai letter) are looked for as whole words only.
constexpr qsizetype kMinSpacelessUnits = 2;

struct Vocabulary
{
    QHash<QString, QList<Entry>> byFirstWord; // longest entries first
    // Spaceless-script consequence phrases by their first UTF-16 unit.
    QHash<char16_t, QList<SpacelessEntry>> spaceless;
    QSet<int> scripts; // the scripts (QChar::Script) of the vocabulary's letters
    QSet<QString> routineWords;
    QSet<QString> routineRoles;
};

const Vocabulary &vocabulary()
{
    static const Vocabulary v = [] {
        Vocabulary vocab;
        // The same words twice (one language's word is another's, or a translation is the
        // English word): a consequence keeps the first of kConsequencePriority; otherwise the
        // first entry stays.
        auto add = [&vocab](Entry entry) {
            QList<Entry> &list = vocab.byFirstWord[entry.words.first()];
            for (Entry &existing : list) {
                if (existing.words != entry.words)
                    continue;
                if (existing.category == Category::Consequence &&
                    entry.category == Category::Consequence &&
                    priorityOf(entry.consequence) < priorityOf(existing.consequence))
                    existing.consequence = entry.consequence;
                return;
            }
            list.append(std::move(entry));
        };
        auto addPhrase = [&add](const QString &phrase, Category category, C consequence) {
            const QStringList words = wordsOf(withoutInvisible(phrase));
            if (words.isEmpty())
                return;
            add(Entry{words, category, consequence});
            // The phrase written as one word, as paths and identifiers often write it.
            if (words.size() > 1 && category != Category::Neutral)
                add(Entry{QStringList{words.join(QString())}, category, consequence});
        };
        for (const VocabularyEntry &raw : kVocabulary)
            addPhrase(QString::fromUtf8(raw.phrase), raw.category, raw.consequence);
        for (const TranslatedEntry &raw : kHandKeptVocabulary)
            addPhrase(QString::fromUtf8(raw.phrase), Category::Consequence, raw.consequence);
        for (const TranslatedEntry &raw : kGeneratedVocabulary)
            addPhrase(QString::fromUtf8(raw.phrase), Category::Consequence, raw.consequence);
        for (QList<Entry> &list : vocab.byFirstWord) {
            std::stable_sort(list.begin(), list.end(), [](const Entry &a, const Entry &b) {
                return a.words.size() > b.words.size();
            });
            for (const Entry &entry : list) {
                const QString joined = entry.words.join(QString());
                for (const char32_t c : QStringView(joined).toUcs4()) {
                    if (QChar::isLetter(c))
                        vocab.scripts.insert(int(QChar::script(c)));
                }
                if (entry.category != Category::Consequence || joined.size() < kMinSpacelessUnits ||
                    !hasSpacelessLetter(joined))
                    continue;
                QList<SpacelessEntry> &spaceless = vocab.spaceless[joined.front().unicode()];
                const bool known =
                    std::any_of(spaceless.cbegin(), spaceless.cend(),
                                [&joined](const SpacelessEntry &e) { return e.text == joined; });
                if (!known)
                    spaceless.append(SpacelessEntry{joined, entry.consequence});
            }
        }
        for (const char *word : kRoutineWords)
            vocab.routineWords.insert(QString::fromLatin1(word));
        for (const char *role : kRoutineRoles)
            vocab.routineRoles.insert(QString::fromLatin1(role));
        return vocab;
    }();
    return v;
}

bool wordMatches(const QString &entryWord, const QString &word, bool last)
{
    if (word == entryWord)
        return true;
    // A plural of the entry's last word ("permissions", "uploads").
    return last && word.size() == entryWord.size() + 1 && word.endsWith(u's') &&
           word.startsWith(entryWord);
}

// The longest entry whose words start at words[i], or nullptr.
const Entry *longestEntryAt(const QStringList &words, qsizetype i)
{
    const Vocabulary &vocab = vocabulary();
    const Entry *best = nullptr;
    auto consider = [&](const QString &key) {
        const auto it = vocab.byFirstWord.constFind(key);
        if (it == vocab.byFirstWord.constEnd())
            return;
        for (const Entry &entry : *it) {
            if (best && best->words.size() >= entry.words.size())
                break; // sorted longest first
            if (i + entry.words.size() > words.size())
                continue;
            bool match = true;
            for (qsizetype k = 0; k < entry.words.size() && match; ++k)
                match =
                    wordMatches(entry.words.at(k), words.at(i + k), k + 1 == entry.words.size());
            if (match)
                best = &entry;
        }
    };
    const QString &word = words.at(i);
    consider(word);
    if (word.size() > 1 && word.endsWith(u's'))
        consider(word.chopped(1)); // a one-word entry in the plural
    return best;
}

// Every spaceless-script phrase inside the word names its consequence. Only ever names: a
// phrase found inside a word never makes a text routine.
void nameInsideWord(const QString &word, QSet<C> &named)
{
    if (!hasSpacelessLetter(word))
        return;
    const Vocabulary &vocab = vocabulary();
    const QStringView view(word);
    for (qsizetype i = 0; i + kMinSpacelessUnits <= view.size(); ++i) {
        const auto it = vocab.spaceless.constFind(view.at(i).unicode());
        if (it == vocab.spaceless.constEnd())
            continue;
        for (const SpacelessEntry &entry : *it) {
            if (view.sliced(i).startsWith(entry.text))
                named.insert(entry.consequence);
        }
    }
}

} // namespace

WordsVerdict judgeWords(const QStringList &words)
{
    WordsVerdict verdict;
    for (const QString &word : words)
        nameInsideWord(word, verdict.named);
    for (qsizetype i = 0; i < words.size();) {
        const Entry *entry = longestEntryAt(words, i);
        if (!entry) {
            ++i;
            continue;
        }
        if (entry->category == Category::Consequence)
            verdict.named.insert(entry->consequence);
        else if (entry->category == Category::Area)
            verdict.area = true;
        else if (entry->category == Category::SignInArea)
            verdict.area = verdict.signInArea = true;
        i += entry->words.size();
    }
    const Vocabulary &vocab = vocabulary();
    verdict.routine = !words.isEmpty();
    for (const QString &word : words) {
        bool digits = !word.isEmpty();
        for (const QChar c : word)
            digits = digits && c >= u'0' && c <= u'9';
        if (!digits && !vocab.routineWords.contains(word)) {
            verdict.routine = false;
            break;
        }
    }
    return verdict;
}

// A letter of a script no vocabulary phrase is written in (Georgian, Ethiopic, Tamil, ...).
// Digits, punctuation, symbols and emoji are not letters; letters shared by scripts count as
// readable.
bool hasUnreadableLetter(QStringView text)
{
    const Vocabulary &vocab = vocabulary();
    for (const char32_t c : text.toUcs4()) {
        if (!QChar::isLetter(c))
            continue;
        const QChar::Script script = QChar::script(c);
        if (script == QChar::Script_Common || script == QChar::Script_Inherited ||
            script == QChar::Script_Unknown)
            continue;
        if (!vocab.scripts.contains(int(script)))
            return true;
    }
    return false;
}

int priorityOf(C consequence)
{
    for (qsizetype i = 0; i < qsizetype(std::size(kConsequencePriority)); ++i) {
        if (kConsequencePriority[i] == consequence)
            return int(i);
    }
    return int(std::size(kConsequencePriority));
}

const QSet<QString> &routineRoleSet()
{
    return vocabulary().routineRoles;
}

QStringList routineRoleList()
{
    QStringList roles;
    for (const char *role : kRoutineRoles)
        roles << QString::fromLatin1(role);
    return roles;
}

} // namespace veetbot::ConsequenceDetail
