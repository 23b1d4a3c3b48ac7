// The action-consequence classifier: every named consequence through every source kind,
// lookalike letters and digits, right-to-left overrides and isolates, invisible characters,
// labels cut short, routine and unknown words, whole-word matching, phrases inside the words of
// scripts written without spaces, every language of the translated vocabulary, unreadable
// scripts, deny bias across sources, sensitive path segments, and the stable strings.

#include "domain/action/ActRequest.h"
#include "domain/action/ActionConsequence.h"
#include "domain/observation/ElementFacts.h"

#include <QTest>

#include <algorithm>

using namespace veetbot;

Q_DECLARE_METATYPE(veetbot::BrowserActionConsequence)
Q_DECLARE_METATYPE(veetbot::ConsequenceSource)
Q_DECLARE_METATYPE(veetbot::TextReading)

namespace {

using C = BrowserActionConsequence;
using S = ConsequenceSource;

// The translated vocabulary as the classifier compiles it: {language, English, phrase,
// consequence}.
struct TranslatedWord
{
    const char *language;
    const char *english;
    const char *phrase;
    C consequence;
};
constexpr TranslatedWord kGenerated[] = {
#include "domain/action/vocabulary/GeneratedVocabulary.inc"
};
constexpr TranslatedWord kHandKept[] = {
#include "domain/action/vocabulary/HandKept.inc"
};

// The languages the translated vocabulary must cover: the official languages of the EU, and
// Chinese (simplified and traditional), Japanese, Korean, Russian, Ukrainian, Turkish, Arabic,
// Hebrew, Hindi, Indonesian, Vietnamese, Thai and Brazilian Portuguese. Every one but Maltese
// (which no catalog read carries) comes from the generated table.
const QStringList kLanguages = {
    u"bg"_qs,      u"hr"_qs,      u"cs"_qs, u"da"_qs, u"nl"_qs, u"en"_qs,    u"et"_qs, u"fi"_qs,
    u"fr"_qs,      u"de"_qs,      u"el"_qs, u"hu"_qs, u"ga"_qs, u"it"_qs,    u"lv"_qs, u"lt"_qs,
    u"mt"_qs,      u"pl"_qs,      u"pt"_qs, u"ro"_qs, u"sk"_qs, u"sl"_qs,    u"es"_qs, u"sv"_qs,
    u"zh-Hans"_qs, u"zh-Hant"_qs, u"ja"_qs, u"ko"_qs, u"ru"_qs, u"uk"_qs,    u"tr"_qs, u"ar"_qs,
    u"he"_qs,      u"hi"_qs,      u"id"_qs, u"vi"_qs, u"th"_qs, u"pt-BR"_qs,
};

const QString kRevision = QStringLiteral("r-0123456789abcdef0123456789abcdef");
const QString kRef = QStringLiteral("c1.0");
const QUrl kPage(QStringLiteral("https://shop.example/catalog/lamps"));

// The text sources a row can put its text into. The field kind and the target path read the
// text as a field-kind string and as a path on the page's origin.
const QList<S> kTextSources = {
    S::AccessibleName,  S::AriaLabel,  S::Title,           S::Placeholder,
    S::AssociatedLabel, S::LabelledBy, S::AlternativeText, S::ButtonValue,
    S::VisibleText,     S::DialogName, S::SelectedOption,  S::ChosenOption,
};

std::optional<LabelSource> labelSourceOf(S source)
{
    switch (source) {
    case S::AriaLabel:
        return LabelSource::AriaLabel;
    case S::Title:
        return LabelSource::Title;
    case S::Placeholder:
        return LabelSource::Placeholder;
    case S::AssociatedLabel:
        return LabelSource::AssociatedLabel;
    case S::LabelledBy:
        return LabelSource::LabelledBy;
    case S::AlternativeText:
        return LabelSource::AlternativeText;
    case S::ButtonValue:
        return LabelSource::ButtonValue;
    default:
        return std::nullopt;
    }
}

// A button (or, for options, a select) whose only text is `text` in `source`.
struct Case
{
    ElementFacts facts;
    ActRequest request;
};

Case caseFor(S source, const QString &text)
{
    Case c{ElementFacts{QStringLiteral("button"), {}, {}, {}, {}, {}},
           *ActRequest::click(kRevision, kRef)};
    if (const auto label = labelSourceOf(source)) {
        c.facts.labels = {LabelText{*label, text, true}};
        return c;
    }
    switch (source) {
    case S::Role:
        c.facts.role = text;
        break;
    case S::AccessibleName:
        c.facts.accessibleName = text;
        break;
    case S::VisibleText:
        c.facts.visibleText = text;
        break;
    case S::DialogName:
        c.facts.dialogName = text;
        break;
    case S::SelectedOption:
        c.facts.role = QStringLiteral("combobox");
        c.facts.selectedOption = text;
        break;
    case S::ChosenOption:
        c.facts.role = QStringLiteral("combobox");
        c.request = *ActRequest::select(kRevision, kRef, text);
        break;
    case S::FieldKind:
        c.facts.role = QStringLiteral("textbox");
        c.facts.fieldKind = fieldKindFromString(text).value_or(FieldKind::Other);
        c.request = *ActRequest::type(kRevision, kRef, QStringLiteral("x"));
        break;
    case S::TargetPath:
        c.facts.role = QStringLiteral("link");
        c.facts.target =
            navigationTargetOf(QUrl(QStringLiteral("https://shop.example") + text), kPage, false);
        break;
    default:
        break;
    }
    return c;
}

// Twelve phrases for each named consequence: one per text source, so each consequence goes
// through each source kind and the vocabulary is covered widely.
const QList<std::pair<C, QStringList>> &phrases()
{
    static const QList<std::pair<C, QStringList>> table{
        {C::Payment,
         {"Pay", "Pay now", "Payment", "Add payment method", "Credit card", "Send money",
          "Transfer funds", "Donate", "Top up", "Withdraw", "Billing", "Wire transfer"}},
        {C::Purchase,
         {"Buy", "Buy now", "Place order", "Checkout", "Check out", "Add to cart", "Subscribe",
          "Upgrade", "Book now", "Pre-order", "Start free trial", "Purchase"}},
        {C::AccountRecovery,
         {"Forgot password?", "Forgot your password?", "Reset password", "Account recovery",
          "Recover account", "Recovery codes", "Backup code", "Can\u2019t sign in?",
          "Trouble signing in", "Unlock account", "Recovery email", "Lost password"}},
        {C::CredentialChange,
         {"Change password", "Update password", "New password", "Two-factor authentication", "2FA",
          "MFA", "Authenticator app", "Security key", "Passkeys", "Set up 2-step verification",
          "One-time code", "Change PIN"}},
        {C::PermissionChange,
         {"Grant access", "Permissions", "Share with", "Invite", "Invite people", "Make admin",
          "Transfer ownership", "Add member", "Revoke", "Authorize", "Allow", "Change role"}},
        {C::LegalAcceptance,
         {"I agree", "Accept terms", "Terms of service", "Terms and conditions", "I accept",
          "Accept all", "Privacy policy", "Consent", "Sign contract", "Acknowledge", "EULA",
          "Agree"}},
        {C::Publication,
         {"Publish", "Post", "Send", "Submit review", "Tweet", "Reply", "Comment", "Share",
          "Submit", "Repost", "Go live", "Send message"}},
        {C::Destructive,
         {"Delete", "Remove", "Destroy", "Delete account", "Close account", "Deactivate",
          "Cancel order", "Erase", "Empty bin", "Discard", "Close my account", "Reset"}},
        {C::FileTransfer,
         {"Upload", "Download", "Export", "Attach", "Import", "Choose file", "Attachment",
          "Save as", "Upload photo", "Download invoice", "Export data", "Attach files"}},
        {C::SecuritySettings,
         {"Security", "API key", "Sessions", "Sign out everywhere", "Security settings",
          "Privacy settings", "Access tokens", "Log out of all sessions", "SSH keys", "Webhooks",
          "Encryption", "Trusted devices"}},
        {C::SignOut,
         {"Sign out", "Log out", "Logout", "Log off", "Abmelden", "Se d\u00E9connecter",
          "\u30ED\u30B0\u30A2\u30A6\u30C8", "\u9000\u51FA\u767B\u5F55", "\u767B\u51FA",
          "\u0110\u0103ng xu\u1EA5t", "Wyloguj si\u0119", "Kirjaudu ulos"}},
        {C::StateChange,
         {"Undo", "Rollback", "Move page", "Rename", "Revert", "Restore", "Archive", "Protect page",
          "Lock", "R\u00FCckg\u00E4ngig", "\u5143\u306B\u623B\u3059", "Verschieben"}},
        {C::Submission,
         {"Save changes", "Confirm", "Speichern", "Enregistrer", "Guardar", "Salvar",
          "\u4FDD\u5B58", "\uC800\uC7A5", "\u0421\u043E\u0445\u0440\u0430\u043D\u0438\u0442\u044C",
          "Kaydet", "\u062D\u0641\u0638", "\u05E9\u05DE\u05D5\u05E8"}},
    };
    return table;
}

// Paths in the styles sites write them: kebab, camel and snake case, joined, nested.
const QList<std::pair<C, QStringList>> &paths()
{
    static const QList<std::pair<C, QStringList>> table{
        {C::Payment, {"/pay", "/wallet/sendMoney", "/billing/overview"}},
        {C::Purchase, {"/checkout", "/shop/add-to-cart", "/plans/subscribe"}},
        {C::AccountRecovery, {"/forgot-password", "/account/recovery", "/resetPassword"}},
        {C::CredentialChange, {"/settings/changePassword", "/security/2fa", "/user/two_factor"}},
        {C::PermissionChange, {"/team/grant_access", "/org/members/invite", "/permissions"}},
        {C::LegalAcceptance, {"/legal/accept-terms", "/terms-of-service", "/consent"}},
        {C::Publication, {"/blog/publish", "/compose/send", "/posts/new/submit"}},
        {C::Destructive, {"/account/delete", "/deleteAccount", "/items/42/remove"}},
        {C::SecuritySettings, {"/settings/security", "/developer/api-keys", "/sessions"}},
    };
    return table;
}

QByteArray rowName(const char *group, S source, const QString &text)
{
    return QByteArray(group) + '/' + consequenceSourceString(source).toUtf8() + '/' +
           text.toUtf8().toPercentEncoding(" /?!-'");
}

} // namespace

class TestActionConsequence : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void classifies_data();
    void classifies();
    void denyBiasAcrossSources();
    void labelsCutShort();
    void standingGrantsNeedTheSameRoutineWordEverywhere();
    void scrollIsRoutine();
    void sensitivePathSegments_data();
    void sensitivePathSegments();
    void readingsOfOverridesAndIsolates();
    void everyLanguage_data();
    void everyLanguage();
    void everyTranslatedWordNames();
    void stableStrings();
};

void TestActionConsequence::classifies_data()
{
    QTest::addColumn<S>("source");
    QTest::addColumn<QString>("text");
    QTest::addColumn<C>("expected");
    // For a named consequence: the reading that named it, or None when not checked.
    QTest::addColumn<TextReading>("reading");

    // Every named consequence through every text source.
    for (const auto &[consequence, list] : phrases()) {
        for (qsizetype i = 0; i < kTextSources.size(); ++i) {
            const S source = kTextSources.at(i);
            QTest::newRow(rowName("vocabulary", source, list.at(i)).constData())
                << source << list.at(i) << consequence << TextReading::Written;
        }
    }
    // Every named consequence through the navigation target's path segments.
    for (const auto &[consequence, list] : paths()) {
        for (const QString &path : list)
            QTest::newRow(rowName("path", S::TargetPath, path).constData())
                << S::TargetPath << path << consequence << TextReading::None;
    }
    // Field kinds and the role.
    const struct
    {
        S source;
        const char *text;
        C expected;
    } fixed[] = {
        {S::FieldKind, "credential", C::CredentialChange},
        {S::FieldKind, "one_time_code", C::CredentialChange},
        {S::FieldKind, "payment", C::Payment},
        {S::FieldKind, "file", C::FileTransfer},
        {S::FieldKind, "identity", C::Unknown},
        {S::FieldKind, "email", C::Unknown},
        {S::FieldKind, "editable_region", C::Unknown},
        {S::Role, "transfer all funds", C::Payment},
        {S::Role, "delete", C::Destructive},
        {S::Role, "button", C::Unknown}, // no label at all
    };
    for (const auto &row : fixed)
        QTest::newRow(rowName("fixed", row.source, QString::fromUtf8(row.text)).constData())
            << row.source << QString::fromUtf8(row.text) << row.expected << TextReading::None;

    const struct
    {
        const char *group;
        S source;
        QString text;
        C expected;
        TextReading reading;
    } rows[] = {
        // Lookalike letters: Cyrillic, Greek, Armenian, small capitals, IPA, fullwidth and
        // mathematical letters, marks; digits 0 and 1.
        {"lookalike", S::AccessibleName, QStringLiteral("D\u0435lete"), C::Destructive,
         TextReading::Folded},
        {"lookalike", S::VisibleText, QStringLiteral("D\u0435l\u0435t\u0435"), C::Destructive,
         TextReading::Folded},
        {"lookalike", S::AriaLabel, QStringLiteral("P\u043Est"), C::Publication,
         TextReading::Folded},
        {"lookalike", S::Title, QStringLiteral("Sh\u0430re"), C::Publication, TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\u0420ay"), C::Payment,
         TextReading::Folded},
        {"lookalike", S::ButtonValue, QStringLiteral("\u0405end"), C::Publication,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\u0412UY"), C::Purchase,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("P\u03BFst"), C::Publication,
         TextReading::Folded},
        {"lookalike", S::LabelledBy, QStringLiteral("\u0395xport"), C::FileTransfer,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("Upl\u03BFad"), C::FileTransfer,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\u0392uy now"), C::Purchase,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\u03A1\u0391\u03A5"), C::Payment,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("P\u0585st"), C::Publication,
         TextReading::Folded},
        {"lookalike", S::DialogName, QStringLiteral("\u054Dnsubscribe"), C::Purchase,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("Re\u057Dume upload"), C::FileTransfer,
         TextReading::Written},
        {"lookalike", S::AccessibleName, QStringLiteral("\u1D05\u1D07\u029F\u1D07\u1D1B\u1D07"),
         C::Destructive, TextReading::Folded},
        {"lookalike", S::AlternativeText, QStringLiteral("\u1D18\u1D00\u028F"), C::Payment,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("Downlo\u0251d"), C::FileTransfer,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\u0261rant access"), C::PermissionChange,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("Subscr\u0269be"), C::Purchase,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("\uFF24\uFF45\uFF4C\uFF45\uFF54\uFF45"),
         C::Destructive, TextReading::Written},
        {"lookalike", S::AccessibleName, QStringLiteral("\U0001D40F\U0001D41A\U0001D432"),
         C::Payment, TextReading::Written},
        {"lookalike", S::AccessibleName, QStringLiteral("De\u0300lete"), C::Destructive,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("De1ete"), C::Destructive,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("P0st"), C::Publication,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("Subscr1be"), C::Purchase,
         TextReading::Folded},
        {"lookalike", S::VisibleText, QStringLiteral("Upl0ad"), C::FileTransfer,
         TextReading::Folded},
        {"lookalike", S::AccessibleName, QStringLiteral("ACCEPT TERMS"), C::LegalAcceptance,
         TextReading::Written},
        {"lookalike", S::AccessibleName, QStringLiteral("\u1D1C\u0274\u029F\u1D0F\u1D04\u1D0B"),
         C::Unknown, TextReading::None}, // "unlock" alone names nothing
        // Right-to-left overrides and isolates: read as displayed.
        {"bidi", S::AccessibleName, QStringLiteral("\u202Eeteled\u202C"), C::Destructive,
         TextReading::Displayed},
        {"bidi", S::VisibleText, QStringLiteral("\u202Etsop\u202C"), C::Publication,
         TextReading::Displayed},
        {"bidi", S::AriaLabel, QStringLiteral("\u202Eyap"), C::Payment, TextReading::Displayed},
        {"bidi", S::AccessibleName, QStringLiteral("De\u202Eetel\u202C"), C::Destructive,
         TextReading::Displayed},
        {"bidi", S::AccessibleName, QStringLiteral("\u2067\u202Etropxe\u202C\u2069"),
         C::FileTransfer, TextReading::Displayed},
        {"bidi", S::AccessibleName, QStringLiteral("\u2068\u202Edaolpu\u202C\u2069"),
         C::FileTransfer, TextReading::Displayed},
        {"bidi", S::DialogName, QStringLiteral("\u202Etnuocca eteled\u202C"), C::Destructive,
         TextReading::Displayed},
        {"bidi", S::AccessibleName, QStringLiteral("\u202E\u0435t\u0435l\u0435d\u202C"),
         C::Destructive, TextReading::DisplayedFolded},
        {"bidi", S::AccessibleName, QStringLiteral("\u202Bdelete\u202C"), C::Destructive,
         TextReading::Written},
        {"bidi", S::AccessibleName, QStringLiteral("\u202Deteled\u202C"), C::Unknown,
         TextReading::None}, // left-to-right override: shown as written
        {"bidi", S::AccessibleName, QStringLiteral("\u2067eteled\u2069"), C::Unknown,
         TextReading::None}, // an isolate alone does not reverse Latin letters
        {"bidi", S::AccessibleName, QStringLiteral("\u05E9\u05DC\u05D5\u05DD \u202Eyap\u202C"),
         C::Payment, TextReading::Displayed},
        // Invisible characters inside words.
        {"invisible", S::AccessibleName, QStringLiteral("De\u200Blete"), C::Destructive,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Pa\u200Dy"), C::Payment,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Sub\u200Cscribe"), C::Purchase,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Up\u00ADload"), C::FileTransfer,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Del\u2060ete"), C::Destructive,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Pu\uFEFFblish"), C::Publication,
         TextReading::Written},
        {"invisible", S::AccessibleName, QStringLiteral("Re\uFE0Fmove"), C::Destructive,
         TextReading::Written},
        // Whole words and phrases only.
        {"substring", S::AccessibleName, QStringLiteral("Postcode"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Post code"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Poster"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Payday"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Deleted items"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Sender"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Uploaded by"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Repayment plan"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Reorder"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Design"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Spinach"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Passage"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Terminal"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Bookmark"), C::Unknown, TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Insecurity"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Sort order"), C::Unknown,
         TextReading::None},
        {"substring", S::AccessibleName, QStringLiteral("Order by date"), C::Unknown,
         TextReading::None},
        // A whole word names its consequence whatever surrounds it.
        {"word", S::AccessibleName, QStringLiteral("Download speed test"), C::FileTransfer,
         TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("Continue to payment"), C::Payment,
         TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("delete"), C::Destructive, TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("Remove from cart"), C::Purchase,
         TextReading::Written}, // purchase comes before destructive
        {"word", S::AccessibleName, QStringLiteral("Forgot password"), C::AccountRecovery,
         TextReading::Written}, // the phrase, not the credential word inside it
        {"word", S::AccessibleName, QStringLiteral("Uploads"), C::FileTransfer,
         TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("\u00BFDelete?"), C::Destructive,
         TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("delete-account"), C::Destructive,
         TextReading::Written},
        {"word", S::AccessibleName, QStringLiteral("DELETE_ALL"), C::Destructive,
         TextReading::Written},
        // Routine: every word read is ordinary navigation.
        {"routine", S::AccessibleName, QStringLiteral("Next"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Previous"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Search"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Open"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Close"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Show more"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Expand"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Collapse"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Filter"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Sort by"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Continue"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Back"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Menu"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Details"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Page 2"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Page 1"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("View all"), C::Routine, TextReading::None},
        {"routine", S::AccessibleName, QStringLiteral("Load more"), C::Routine, TextReading::None},
        {"routine", S::AriaLabel, QStringLiteral("Zoom in"), C::Routine, TextReading::None},
        {"routine", S::VisibleText, QStringLiteral("Skip to content"), C::Routine,
         TextReading::None},
        {"routine", S::Title, QStringLiteral("  Next   page  "), C::Routine, TextReading::None},
        {"routine", S::AssociatedLabel, QStringLiteral("Search"), C::Routine, TextReading::None},
        // Unknown: nothing named, not all routine.
        {"unknown", S::AccessibleName, QStringLiteral("OK"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Cancel"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Sign in"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Settings"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("My account"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Edit"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Contact us"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Learn more"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("N\u0435xt"), C::Unknown,
         TextReading::None}, // a lookalike never makes a routine word
        {"unknown", S::AccessibleName, QStringLiteral("Nex1"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("\u2192"), C::Unknown, TextReading::None},
        {"unknown", S::AccessibleName, QStringLiteral("Annuler"), C::Unknown,
         TextReading::None}, // French Undo, but also Cancel: left out of the vocabulary
        {"unknown", S::AccessibleName, QStringLiteral("D\u04E9lete"), C::Unknown,
         TextReading::None}, // a lookalike outside the set: a known limit
        {"unknown", S::DialogName, QStringLiteral("Filters"), C::Unknown,
         TextReading::None}, // routine words, but no label names the element
        // Other languages, as whole words.
        {"language", S::AccessibleName, QStringLiteral("L\u00F6schen"), C::Destructive,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Supprimer"), C::Destructive,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Jetzt kaufen"), C::Purchase,
         TextReading::Written},
        {"language", S::VisibleText,
         QStringLiteral("\u041E\u0442\u043F\u0440\u0430\u0432\u0438\u0442\u044C"), C::Publication,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("\u0938\u0939\u0947\u091C\u0947\u0902"),
         C::Submission, TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Simpan"), C::Submission,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("L\u01B0u"), C::Submission,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Apply"), C::Submission,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Wyloguj"), C::SignOut,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Se d\u00E9sabonner"), C::Purchase,
         TextReading::Written},
        {"language", S::AccessibleName, QStringLiteral("Speichern und l\u00F6schen"),
         C::Destructive, TextReading::Written}, // the first of the priority order
        // Scripts written without spaces: a phrase inside a run of letters names it.
        {"spaceless", S::AccessibleName, QStringLiteral("\u7ACB\u5373\u652F\u4ED8"), C::Payment,
         TextReading::Written},
        {"spaceless", S::AccessibleName, QStringLiteral("\u524A\u9664"), C::Destructive,
         TextReading::Written},
        {"spaceless", S::AccessibleName, QStringLiteral("\u524A\u9664\u3059\u308B"), C::Destructive,
         TextReading::Written},
        {"spaceless", S::AccessibleName, QStringLiteral("\u7ACB\u5373\u8D2D\u4E70"), C::Purchase,
         TextReading::Written},
        {"spaceless", S::AccessibleName, QStringLiteral("\u0E1A\u0E31\u0E19\u0E17\u0E36\u0E01"),
         C::Submission, TextReading::Written},
        {"spaceless", S::AccessibleName,
         QStringLiteral("\u0E1A\u0E31\u0E19\u0E17\u0E36\u0E01\u0E01\u0E32\u0E23\u0E40"
                        "\u0E1B\u0E25\u0E35\u0E48\u0E22\u0E19\u0E41\u0E1B\u0E25\u0E07"),
         C::Submission, TextReading::Written}, // save changes
        {"spaceless", S::AccessibleName, QStringLiteral("\uC800\uC7A5\uD558\uAE30"), C::Submission,
         TextReading::Written},
        {"spaceless", S::AccessibleName, QStringLiteral("\u4E0B\u4E00\u9875"), C::Unknown,
         TextReading::None}, // next page: names nothing, and is never routine
        // A script no vocabulary covers: unreadable, unless something else names a consequence.
        {"unreadable", S::AccessibleName,
         QStringLiteral("\u10E8\u10D4\u10DC\u10D0\u10EE\u10D5\u10D0"), C::Unreadable,
         TextReading::None}, // Georgian: save
        {"unreadable", S::AccessibleName, QStringLiteral("\u1230\u122D\u12DD"), C::Unreadable,
         TextReading::None}, // Amharic
        {"unreadable", S::VisibleText, QStringLiteral("\u0B9A\u0BC7\u0BAE\u0BBF"), C::Unreadable,
         TextReading::None}, // Tamil
        {"unreadable", S::AriaLabel,
         QStringLiteral("\u179A\u1780\u17D2\u179F\u17B6\u1791\u17BB\u1780"), C::Unreadable,
         TextReading::None}, // Khmer
        {"unreadable", S::AccessibleName,
         QStringLiteral("Next \u10E8\u10D4\u10DC\u10D0\u10EE\u10D5\u10D0"), C::Unreadable,
         TextReading::None},
        {"unreadable", S::AccessibleName,
         QStringLiteral("Delete \u10E8\u10D4\u10DC\u10D0\u10EE\u10D5\u10D0"), C::Destructive,
         TextReading::Written}, // a named consequence wins
        {"unreadable", S::AccessibleName, QStringLiteral("Next \U0001F642 2"), C::Routine,
         TextReading::None}, // an emoji and a digit are not letters
        {"unreadable", S::AccessibleName, QStringLiteral("\U0001F642"), C::Unknown,
         TextReading::None},
    };
    for (const auto &row : rows)
        QTest::newRow(rowName(row.group, row.source, row.text).constData())
            << row.source << row.text << row.expected << row.reading;
}

void TestActionConsequence::classifies()
{
    QFETCH(S, source);
    QFETCH(QString, text);
    QFETCH(C, expected);
    QFETCH(TextReading, reading);
    const Case c = caseFor(source, text);
    const ActionClassification got = classifyAction(c.facts, c.request);
    QCOMPARE(consequenceString(got.consequence), consequenceString(expected));
    if (isNamedConsequence(expected)) {
        QCOMPARE(consequenceSourceString(got.source), consequenceSourceString(source));
        if (reading != TextReading::None)
            QCOMPARE(textReadingString(got.reading), textReadingString(reading));
    } else {
        QCOMPARE(got.source, S::None);
    }
}

void TestActionConsequence::denyBiasAcrossSources()
{
    const ActRequest click = *ActRequest::click(kRevision, kRef);
    ElementFacts next{QStringLiteral("button"), QStringLiteral("Next"), {}, {}, {}, {}};
    QCOMPARE(classifyAction(next, click).consequence, C::Routine);

    // One source says routine, another names a consequence: the consequence.
    ElementFacts visible = next;
    visible.visibleText = QStringLiteral("Delete");
    QCOMPARE(classifyAction(visible, click),
             (ActionClassification{C::Destructive, S::VisibleText, TextReading::Written}));
    ElementFacts titled = next;
    titled.labels = {LabelText{LabelSource::AriaLabel, QStringLiteral("Search"), true},
                     LabelText{LabelSource::Title, QStringLiteral("Remove"), true}};
    QCOMPARE(classifyAction(titled, click).source, S::Title);
    ElementFacts inDialog = next;
    inDialog.dialogName = QStringLiteral("Delete your account?");
    QCOMPARE(classifyAction(inDialog, click).source, S::DialogName);
    ElementFacts linked = next;
    linked.role = QStringLiteral("link");
    linked.target = navigationTargetOf(QUrl(QStringLiteral("https://shop.example/account/delete")),
                                       kPage, false);
    QCOMPARE(classifyAction(linked, click),
             (ActionClassification{C::Destructive, S::TargetPath, TextReading::None}));

    // Several named: the first of the priority order, from the first source that named it.
    ElementFacts both = next;
    both.accessibleName = QStringLiteral("Delete");
    both.visibleText = QStringLiteral("Pay");
    QCOMPARE(classifyAction(both, click),
             (ActionClassification{C::Payment, S::VisibleText, TextReading::Written}));
    ElementFacts twice = both;
    twice.accessibleName = QStringLiteral("Pay");
    QCOMPARE(classifyAction(twice, click).source, S::AccessibleName);

    // A select's option, shown or chosen.
    ElementFacts select{QStringLiteral("combobox"), QStringLiteral("Sort"), {}, {}, {}, {}};
    select.fieldKind = FieldKind::Select;
    select.selectedOption = QStringLiteral("Newest");
    QCOMPARE(classifyAction(select, click).consequence, C::Unknown); // "newest" is not routine
    QCOMPARE(
        classifyAction(select, *ActRequest::select(kRevision, kRef, QStringLiteral("Delete all")))
            .source,
        S::ChosenOption);
    select.selectedOption = QStringLiteral("Delete all");
    QCOMPARE(classifyAction(select, *ActRequest::press(kRevision, kRef, ActRequest::Key::ArrowDown))
                 .source,
             S::SelectedOption);

    // A routine label is not routine when the element is not an ordinary control or goes
    // somewhere sensitive, to another origin or nowhere readable.
    ElementFacts routineLink = next;
    routineLink.role = QStringLiteral("link");
    routineLink.target = navigationTargetOf(
        QUrl(QStringLiteral("https://shop.example/catalog/lamps/2")), kPage, false);
    QCOMPARE(classifyAction(routineLink, click).consequence, C::Routine);
    for (const char *target : {"https://shop.example/login?next=/catalog",
                               "https://other.example/catalog", "javascript:void(0)"}) {
        ElementFacts link = routineLink;
        link.target = navigationTargetOf(QUrl(QString::fromUtf8(target)), kPage, false);
        QVERIFY2(classifyAction(link, click).consequence == C::Unknown, target);
    }
    ElementFacts slider = next;
    slider.role = QStringLiteral("slider");
    QCOMPARE(classifyAction(slider, click).consequence, C::Unknown);
    ElementFacts identity = next;
    identity.fieldKind = FieldKind::Identity;
    QCOMPARE(classifyAction(identity, click).consequence, C::Unknown);
    ElementFacts password = next;
    password.fieldKind = fieldKindOf(u"input", u"password", u"", false);
    QCOMPARE(classifyAction(password, click),
             (ActionClassification{C::CredentialChange, S::FieldKind, TextReading::None}));
    ElementFacts download = routineLink;
    download.target->download = true;
    QCOMPARE(classifyAction(download, click).source, S::TargetDownload);

    // A link whose GET only reads: words for publishing, saving or changing name only what the
    // page it opens offers ("Older Posts", "Leave a comment", "Published (22)"); words that
    // name more still count; the same words on a target that writes count too.
    const QUrl admin(QStringLiteral("https://shop.example/wp-admin/edit.php"));
    const auto linkTo = [&](const QString &name, const char *target) {
        ElementFacts link{QStringLiteral("link"), name, {}, {}, {}, {}};
        link.visibleText = name;
        link.target = navigationTargetOf(QUrl(QString::fromUtf8(target)), admin, false);
        return classifyAction(link, click);
    };
    for (const auto &[name, target] :
         {std::pair{"Older Posts", "https://shop.example/page/2/"},
          std::pair{"Leave a comment", "https://shop.example/2026/12/hello-world/#respond"},
          std::pair{"Published (22)",
                    "https://shop.example/wp-admin/edit.php?post_status=publish&post_type=post"},
          std::pair{"Hello world!", "https://shop.example/wp-admin/post.php?post=12&action=edit"}})
        QVERIFY2(linkTo(QString::fromUtf8(name), target).consequence == C::Unknown, name);
    QCOMPARE(linkTo(QStringLiteral("Trash"), "https://shop.example/wp-admin/"
                                             "edit.php?post_status=trash")
                 .consequence,
             C::Destructive); // the word names more than publishing
    QCOMPARE(linkTo(QStringLiteral("Publish"), "https://shop.example/blog/publish").consequence,
             C::Publication); // the target is a publishing endpoint
    QCOMPARE(linkTo(QStringLiteral("Comments"),
                    "https://shop.example/wp-admin/comment.php?c=5&action=approvecomment&"
                    "_wpnonce=d4e5f6a7b8")
                 .consequence,
             C::Publication); // on a nonce link, which writes, the word counts
    QCOMPARE(linkTo(QStringLiteral("Mark all as read"),
                    "https://shop.example/notifications/mark-all-read"),
             (ActionClassification{C::StateChange, S::TargetQuery, TextReading::None}));
    // A POST form's button is a submission whatever it says.
    ElementFacts save{QStringLiteral("button"), QStringLiteral("Search Posts"), {}, {}, {}, {}};
    save.target = navigationTargetOf(admin, admin, false, true);
    QCOMPARE(classifyAction(save, click).consequence, C::Publication);
    save.target = navigationTargetOf(admin, admin, false, false);
    QCOMPARE(classifyAction(save, click).consequence, C::Unknown); // a GET search form
    // A path that reads as a file transfer: a form that posts there transfers (the field kind
    // or the download flag names a file of its own); a GET link there only opens a page, and a
    // download it would start is refused by the browser.
    for (const char *path : {"/files/upload", "/reports/export.csv", "/download"}) {
        const QString segment = QString::fromLatin1(path).section(u'/', -1);
        QVERIFY2(pathSegmentConsequence(segment) == C::FileTransfer, path);
        ElementFacts upload{QStringLiteral("button"), QStringLiteral("Go"), {}, {}, {}, {}};
        const QUrl at(QStringLiteral("https://shop.example") + QString::fromLatin1(path));
        upload.target = navigationTargetOf(at, admin, false, true);
        QCOMPARE(classifyAction(upload, click),
                 (ActionClassification{C::FileTransfer, S::TargetPath, TextReading::None}));
        upload.target = navigationTargetOf(at, admin, false, false);
        QVERIFY2(classifyAction(upload, click).consequence == C::Unknown, path);
        upload.target = navigationTargetOf(at, admin, true, false); // a download link
        QCOMPARE(classifyAction(upload, click).consequence, C::FileTransfer);
    }
    // What a search field says it searches is not what typing into it does.
    ElementFacts search{
        QStringLiteral("searchbox"), QStringLiteral("Search Posts"), {}, {}, {}, {}};
    search.fieldKind = FieldKind::Search;
    search.native = true;
    const ActRequest typing = *ActRequest::type(kRevision, kRef, QStringLiteral("bread"));
    QCOMPARE(classifyAction(search, typing).consequence, C::Unknown);
    QCOMPARE(classifyAction(search, click).consequence, C::Publication); // a click is no search
    search.accessibleName = QStringLiteral("Search and delete");
    QCOMPARE(classifyAction(search, typing).consequence, C::Destructive);
    ElementFacts comment{QStringLiteral("textbox"), QStringLiteral("Comment"), {}, {}, {}, {}};
    comment.fieldKind = FieldKind::MultiLine;
    QCOMPARE(classifyAction(comment, typing).consequence, C::Publication);
}

void TestActionConsequence::labelsCutShort()
{
    const ActRequest click = *ActRequest::click(kRevision, kRef);
    // The collector keeps 256 units and says the rest was not read.
    const QString longRoutine = QStringLiteral("Next ").repeated(51).trimmed();
    ElementFacts cut{QStringLiteral("button"), QStringLiteral("Next"), {}, {}, {}, {}};
    cut.labels = {LabelText{LabelSource::AriaLabel, longRoutine, false}};
    QVERIFY(withinBounds(cut));
    QVERIFY(!everyLabelSourceWhole(cut));
    // What was read is routine, but the unread part could hold anything.
    QCOMPARE(classifyAction(cut, click).consequence, C::Unknown);
    QVERIFY(!everyLabelReadsSameRoutineWord(cut));
    cut.labels.first().whole = true;
    QCOMPARE(classifyAction(cut, click).consequence, C::Routine);
    QVERIFY(everyLabelSourceWhole(cut));
    // A cut label still names what it read.
    cut.labels = {
        LabelText{LabelSource::LabelledBy, QString(250, u'x') + QStringLiteral(" Pay"), false}};
    QCOMPARE(classifyAction(cut, click).consequence, C::Payment);
    cut.labels.clear();
    cut.visibleText = QStringLiteral("Next");
    cut.visibleTextWhole = false;
    QVERIFY(!everyLabelSourceWhole(cut));
    QCOMPARE(classifyAction(cut, click).consequence, C::Unknown);
    ElementFacts option{QStringLiteral("combobox"), QStringLiteral("Sort"), {}, {}, {}, {}};
    option.selectedOption = QStringLiteral("Next");
    QCOMPARE(classifyAction(option, click).consequence, C::Routine);
    option.selectedOptionWhole = false;
    QCOMPARE(classifyAction(option, click).consequence, C::Unknown);
    // Over the bound is not a fact at all.
    ElementFacts over = cut;
    over.visibleText = QString(ElementFacts::kMaxLabelUnits + 1, u'x');
    QVERIFY(!withinBounds(over));
}

void TestActionConsequence::standingGrantsNeedTheSameRoutineWordEverywhere()
{
    ElementFacts facts{QStringLiteral("button"), QStringLiteral("Next"), {}, {}, {}, {}};
    QVERIFY(everyLabelReadsSameRoutineWord(facts));
    facts.visibleText = QStringLiteral(" next ");
    facts.labels = {LabelText{LabelSource::Title, QStringLiteral("NEXT"), true}};
    QVERIFY(everyLabelReadsSameRoutineWord(facts));
    facts.labels.append(LabelText{LabelSource::AriaLabel, QStringLiteral("Show more"), true});
    QVERIFY(!everyLabelReadsSameRoutineWord(facts)); // routine, but another word
    facts.labels = {LabelText{LabelSource::Title, QStringLiteral("Delete"), true}};
    QVERIFY(!everyLabelReadsSameRoutineWord(facts));
    facts.labels = {LabelText{LabelSource::Title, QStringLiteral("Save"), true}};
    QVERIFY(!everyLabelReadsSameRoutineWord(facts)); // unknown
    facts.labels = {LabelText{LabelSource::Title, QStringLiteral("N\u0435xt"), true}};
    QVERIFY(!everyLabelReadsSameRoutineWord(facts)); // reads as next only when folded
    facts.labels = {LabelText{LabelSource::Title, QStringLiteral("\u202Etxen\u202C"), true}};
    QVERIFY(!everyLabelReadsSameRoutineWord(facts));          // "txen" as written
    QVERIFY(!everyLabelReadsSameRoutineWord(ElementFacts{})); // no label source at all
    ElementFacts show{QStringLiteral("button"), QStringLiteral("Show more"), {}, {}, {}, {}};
    show.visibleText = QStringLiteral("Show\u00A0more");
    QVERIFY(everyLabelReadsSameRoutineWord(show));
}

void TestActionConsequence::scrollIsRoutine()
{
    ElementFacts facts{QStringLiteral("button"), QStringLiteral("Delete account"), {}, {}, {}, {}};
    QCOMPARE(classifyAction(facts, *ActRequest::scroll(kRevision, kRef, 400)),
             (ActionClassification{C::Routine, S::ActionKind, TextReading::None}));
    QCOMPARE(classifyAction(facts, *ActRequest::click(kRevision, kRef)).consequence,
             C::Destructive);
}

void TestActionConsequence::sensitivePathSegments_data()
{
    QTest::addColumn<QString>("segment");
    QTest::addColumn<bool>("sensitive");
    QTest::addColumn<C>("consequence");
    const struct
    {
        const char *segment;
        bool sensitive;
        C consequence;
    } rows[] = {
        {"admin", true, C::Unknown},
        {"wp-admin", true, C::Unknown},
        {"manage", true, C::Unknown},
        {"console", true, C::Unknown},
        {"settings", true, C::Unknown},
        {"login", true, C::Unknown},
        {"signin", true, C::Unknown},
        {"sign-in", true, C::Unknown},
        {"signIn", true, C::Unknown},
        {"logout", true, C::SignOut},
        {"oauth", true, C::Unknown},
        {"oauth2", true, C::Unknown},
        {"sso", true, C::Unknown},
        {"auth", true, C::Unknown},
        {"account", true, C::Unknown},
        {"pricing", true, C::Unknown},
        {"plans", true, C::Unknown},
        {"billing", true, C::Payment},
        {"checkout", true, C::Purchase},
        {"cart", true, C::Purchase},
        {"payment", true, C::Payment},
        {"messages", true, C::Unknown},
        {"inbox", true, C::Unknown},
        {"chat", true, C::Unknown},
        {"compose", true, C::Unknown},
        {"mail", true, C::Unknown},
        {"password", true, C::CredentialChange},
        {"account-recovery", true, C::AccountRecovery},
        {"delete-account", true, C::Destructive},
        {"deleteAccount", true, C::Destructive},
        {"delete_account", true, C::Destructive},
        {"deleteaccount", true, C::Destructive},
        {"API_KEYS", true, C::SecuritySettings},
        {"api%2Dkeys", true, C::SecuritySettings},
        {"%64elete", true, C::Destructive},
        {"%2564elete", false, C::Unknown}, // decoded once
        {"d%C3%A9lete", true, C::Destructive},
        {"%E2%80%AEeteled", true, C::Destructive},
        // Named for a change a task grant can cover: not sensitive, the target still names it.
        {"archive", false, C::StateChange},
        {"save", false, C::Submission},
        {"confirm", false, C::Submission},
        {"bConfirm d", false, C::Submission}, // camel-case humps split
        {"lesson", false, C::Unknown},
        {"products", false, C::Unknown},
        {"blog", false, C::Unknown},
        {"postcode", false, C::Unknown},
        {"search", false, C::Unknown},
        {"help", false, C::Unknown},
        {"123", false, C::Unknown},
        {"p", false, C::Unknown},
        {"", false, C::Unknown},
    };
    for (const auto &row : rows)
        QTest::newRow(row.segment)
            << QString::fromUtf8(row.segment) << row.sensitive << row.consequence;
}

void TestActionConsequence::sensitivePathSegments()
{
    QFETCH(QString, segment);
    QFETCH(bool, sensitive);
    QFETCH(C, consequence);
    QCOMPARE(isSensitivePathSegment(segment), sensitive);
    QCOMPARE(consequenceString(pathSegmentConsequence(segment)), consequenceString(consequence));
}

void TestActionConsequence::readingsOfOverridesAndIsolates()
{
    // The readings of a reversed word: as written, and as displayed in a left-to-right and a
    // right-to-left paragraph (where the words themselves run from the right), each plain and
    // folded.
    const QList<ConsequenceText::Reading> readings =
        ConsequenceText::readings(QStringLiteral("Click \u202Eeteled\u202C now"));
    QList<QStringList> written;
    QList<QStringList> displayed;
    for (const ConsequenceText::Reading &reading : readings) {
        if (reading.kind == TextReading::Written)
            written.append(reading.words);
        if (reading.kind == TextReading::Displayed)
            displayed.append(reading.words);
    }
    QCOMPARE(written, (QList<QStringList>{{QStringLiteral("click"), QStringLiteral("eteled"),
                                           QStringLiteral("now")}}));
    QCOMPARE(displayed,
             (QList<QStringList>{
                 {QStringLiteral("click"), QStringLiteral("delete"), QStringLiteral("now")},
                 {QStringLiteral("now"), QStringLiteral("delete"), QStringLiteral("click")}}));
    // A text without bidirectional characters has no displayed reading of its own.
    for (const ConsequenceText::Reading &reading : ConsequenceText::readings(u"Next"))
        QVERIFY(reading.kind == TextReading::Written || reading.kind == TextReading::Folded);
    // Digits read as letters only in the folded readings that say so.
    bool sawL = false;
    bool sawI = false;
    for (const ConsequenceText::Reading &reading : ConsequenceText::readings(u"1ink")) {
        sawL = sawL || (reading.digitsFolded && reading.words == QStringList{u"link"_qs});
        sawI = sawI || (reading.digitsFolded && reading.words == QStringList{u"iink"_qs});
        QVERIFY(reading.digitsFolded || reading.words == QStringList{u"1ink"_qs});
    }
    QVERIFY(sawL && sawI);
    // Camel case splits only when asked (paths).
    const ConsequenceText::TextVerdict camel = ConsequenceText::read(u"deleteItem", true);
    QCOMPARE(camel.named, std::optional<C>(C::Destructive));
    QVERIFY(!ConsequenceText::read(u"deleteItem").named);
    // Reading is bounded.
    const QString huge = QString(ConsequenceText::kMaxReadUnits, u'x') + QStringLiteral(" pay");
    QVERIFY(!ConsequenceText::read(huge).named);
}

void TestActionConsequence::everyLanguage_data()
{
    QTest::addColumn<QString>("phrase");
    QTest::addColumn<C>("expected");
    // One word of each language, the first its table gives for saving (else its first word).
    for (const QString &language : kLanguages) {
        const bool handKept = language == u"mt"_qs;
        const TranslatedWord *sample = nullptr;
        const auto consider = [&](const TranslatedWord &word) {
            if (QString::fromUtf8(word.language) != language)
                return;
            if (!sample ||
                (qstrcmp(sample->english, "save") != 0 && qstrcmp(word.english, "save") == 0))
                sample = &word;
        };
        if (handKept)
            std::for_each(std::begin(kHandKept), std::end(kHandKept), consider);
        else
            std::for_each(std::begin(kGenerated), std::end(kGenerated), consider);
        QVERIFY2(sample, qPrintable(language + u": no word in the table"_qs));
        const QString phrase = QString::fromUtf8(sample->phrase);
        QTest::newRow(qPrintable(language + u'/' + phrase)) << phrase << sample->consequence;
    }
}

void TestActionConsequence::everyLanguage()
{
    QFETCH(QString, phrase);
    QFETCH(C, expected);
    const Case c = caseFor(S::AccessibleName, phrase);
    QCOMPARE(consequenceString(classifyAction(c.facts, c.request).consequence),
             consequenceString(expected));
    // Capitalised as a button shows it.
    const Case capital = caseFor(S::VisibleText, phrase.left(1).toUpper() + phrase.mid(1));
    QCOMPARE(consequenceString(classifyAction(capital.facts, capital.request).consequence),
             consequenceString(expected));
}

void TestActionConsequence::everyTranslatedWordNames()
{
    // Every word of both tables names its consequence, or one that comes before it (a phrase
    // two languages share keeps the first of the priority order).
    const auto priority = [](C consequence) {
        return std::find(std::begin(kConsequencePriority), std::end(kConsequencePriority),
                         consequence) -
               std::begin(kConsequencePriority);
    };
    QList<const TranslatedWord *> words;
    for (const TranslatedWord &word : kGenerated)
        words.append(&word);
    for (const TranslatedWord &word : kHandKept)
        words.append(&word);
    for (const TranslatedWord *word : words) {
        const QString phrase = QString::fromUtf8(word->phrase);
        const Case c = caseFor(S::AccessibleName, phrase);
        const C got = classifyAction(c.facts, c.request).consequence;
        QVERIFY2(isNamedConsequence(got) && priority(got) <= priority(word->consequence),
                 qPrintable(QString::fromUtf8(word->language) + u": "_qs + phrase + u" reads "_qs +
                            consequenceString(got)));
    }
    QVERIFY(words.size() > 500);
}

void TestActionConsequence::stableStrings()
{
    const QStringList expected{
        u"routine"_qs,           u"unknown"_qs,          u"payment"_qs,
        u"purchase"_qs,          u"account_recovery"_qs, u"credential_change"_qs,
        u"permission_change"_qs, u"legal_acceptance"_qs, u"publication"_qs,
        u"destructive"_qs,       u"file_transfer"_qs,    u"security_settings"_qs,
        u"sign_out"_qs,          u"state_change"_qs,     u"submission"_qs,
        u"unreadable"_qs,
    };
    QStringList got;
    for (const C consequence : kAllConsequences) {
        got.append(consequenceString(consequence));
        QCOMPARE(consequenceFromString(consequenceString(consequence)),
                 std::optional<C>(consequence));
    }
    QCOMPARE(got, expected);
    QVERIFY(!consequenceFromString(u"Payment"));
    QVERIFY(!consequenceFromString(u""));
    QVERIFY(!isNamedConsequence(C::Routine));
    QVERIFY(!isNamedConsequence(C::Unknown));
    QVERIFY(!isNamedConsequence(C::Unreadable));
    QCOMPARE(qsizetype(std::size(kConsequencePriority)),
             qsizetype(std::size(kAllConsequences)) - 3);
    for (const C consequence : kConsequencePriority)
        QVERIFY(isNamedConsequence(consequence));
    for (int kind = int(FieldKind::None); kind <= int(FieldKind::Other); ++kind)
        QCOMPARE(fieldKindFromString(fieldKindString(FieldKind(kind))),
                 std::optional<FieldKind>(FieldKind(kind)));
}

QTEST_GUILESS_MAIN(TestActionConsequence)
#include "tst_actionconsequence.moc"
