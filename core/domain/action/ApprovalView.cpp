#include "ApprovalView.h"

#include "ActionConsequence.h"
#include "domain/web/PageAddress.h"
#include "domain/web/PublicSuffix.h"

#include "domain/Sha256.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <cmath>

namespace veetbot {

QString approvalOriginOf(const QUrl &url)
{
    QString origin = QStringLiteral("https://") + url.host(QUrl::FullyEncoded).toLower();
    const int port = url.port(443);
    if (port != 443)
        origin += u':' + QString::number(port);
    return origin;
}

namespace CredentialShape {

namespace {

bool isTokenChar(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') ||
           u == u'+' || u == u'/' || u == u'=' || u == u'_' || u == u'-';
}

bool isHexDigit(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f') || (u >= u'A' && u <= u'F');
}

double entropyPerChar(QStringView run)
{
    QHash<char16_t, int> counts;
    for (QChar c : run)
        ++counts[c.unicode()];
    double entropy = 0;
    for (int count : std::as_const(counts)) {
        const double p = double(count) / double(run.size());
        entropy -= p * std::log2(p);
    }
    return entropy;
}

bool isHighEntropyRun(QStringView run)
{
    bool upper = false, lower = false, digit = false, hexOnly = true;
    for (QChar c : run) {
        upper = upper || (c >= u'A' && c <= u'Z');
        lower = lower || (c >= u'a' && c <= u'z');
        digit = digit || (c >= u'0' && c <= u'9');
        hexOnly = hexOnly && isHexDigit(c);
    }
    if (hexOnly && run.size() >= 32 && digit && (upper || lower))
        return true;
    return run.size() >= 20 && upper && lower && digit && entropyPerChar(run) >= 3.5;
}

bool luhnValid(const QString &digits)
{
    int sum = 0;
    for (qsizetype i = 0; i < digits.size(); ++i) {
        int d = digits.at(digits.size() - 1 - i).unicode() - u'0';
        if (i % 2 == 1) {
            d *= 2;
            if (d > 9)
                d -= 9;
        }
        sum += d;
    }
    return sum % 10 == 0;
}

} // namespace

bool containsJwt(const QString &text)
{
    static const QRegularExpression jwt(QStringLiteral(
        "(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*"));
    return jwt.match(text).hasMatch();
}

bool containsBearerToken(const QString &text)
{
    static const QRegularExpression bearer(QStringLiteral("\\bbearer\\s+[A-Za-z0-9._~+/-]{16,}=*"),
                                           QRegularExpression::CaseInsensitiveOption);
    return bearer.match(text).hasMatch();
}

bool containsPemBlock(const QString &text)
{
    static const QRegularExpression pem(QStringLiteral("-----BEGIN [A-Z0-9 ]{1,64}-----"));
    return pem.match(text).hasMatch();
}

bool containsHighEntropyToken(const QString &text)
{
    qsizetype start = -1;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        const bool token = i < text.size() && isTokenChar(text.at(i));
        if (token && start < 0)
            start = i;
        if (!token && start >= 0) {
            if (isHighEntropyRun(QStringView(text).mid(start, i - start)))
                return true;
            start = -1;
        }
    }
    return false;
}

bool containsLuhnNumber(const QString &text)
{
    // Digit groups joined by single spaces or hyphens, as card numbers are written.
    static const QRegularExpression group(
        QStringLiteral("(?<![0-9])[0-9](?:[ -]?[0-9])*(?![0-9])"));
    auto it = group.globalMatch(text);
    while (it.hasNext()) {
        QString digits = it.next().captured(0);
        digits.remove(u' ');
        digits.remove(u'-');
        if (digits.size() >= 13 && digits.size() <= 19 && luhnValid(digits))
            return true;
    }
    return false;
}

std::optional<Kind> find(const QString &text)
{
    if (containsJwt(text))
        return Kind::Jwt;
    if (containsBearerToken(text))
        return Kind::BearerToken;
    if (containsPemBlock(text))
        return Kind::PemBlock;
    if (containsHighEntropyToken(text))
        return Kind::HighEntropyToken;
    if (containsLuhnNumber(text))
        return Kind::PaymentCardNumber;
    return std::nullopt;
}

} // namespace CredentialShape

namespace {

int codePointCount(const QString &text)
{
    int count = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i).isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
            ++i;
        ++count;
    }
    return count;
}

bool mustEscape(char32_t codePoint)
{
    switch (QChar::category(codePoint)) {
    case QChar::Other_Control:       // C0, DEL, C1
    case QChar::Other_Format:        // bidi embeddings, overrides and isolates, LRM/RLM,
                                     // ALM, zero-width characters, BOM, soft hyphen
    case QChar::Other_Surrogate:     // an unpaired surrogate
    case QChar::Separator_Line:      // U+2028
    case QChar::Separator_Paragraph: // U+2029
        return true;
    default:
        return false;
    }
}

QString escapeCodePoint(char32_t codePoint)
{
    return QStringLiteral("\\u{") +
           QString::number(uint(codePoint), 16).toUpper().rightJustified(4, u'0') + u'}';
}

QString hostOf(const QUrl &url)
{
    QString host = url.host(QUrl::FullyEncoded).toLower();
    const int port = url.port(443);
    if (port != 443)
        host += u':' + QString::number(port);
    return host;
}

QString pathOf(const QUrl &url)
{
    QString path = url.path(QUrl::FullyEncoded);
    if (path.isEmpty())
        path = QStringLiteral("/");
    // index.php?title=Sandbox&action=edit is "/index.php · Sandbox · edit".
    const QString label = PageAddress::queryLabel(url);
    if (!label.isEmpty())
        path += QStringLiteral(" \u00B7 ") + label;
    if (path.size() > ApprovalView::kMaxPathUnits)
        path = path.left(ApprovalView::kMaxPathUnits - 3) + QStringLiteral("...");
    return path;
}

QString verbPhrase(const ActRequest &request)
{
    switch (request.kind()) {
    case ActRequest::Kind::Click:
        return QStringLiteral("Click");
    case ActRequest::Kind::Type:
        return QStringLiteral("Type text into");
    case ActRequest::Kind::Select:
        return QStringLiteral("Choose an option in");
    case ActRequest::Kind::Check:
        return request.checked() ? QStringLiteral("Check") : QStringLiteral("Uncheck");
    case ActRequest::Kind::Press:
        return QStringLiteral("Press a key on");
    case ActRequest::Kind::Scroll:
        return QStringLiteral("Scroll");
    }
    Q_UNREACHABLE();
    return QString();
}

QString withArticle(const QString &word)
{
    const bool vowel = !word.isEmpty() && QStringLiteral("aeiou").contains(word.at(0));
    return (vowel ? QStringLiteral("an ") : QStringLiteral("a ")) + word;
}

ApprovalView::Redaction fieldRedaction(const ElementFacts &element)
{
    switch (fieldSecret(element)) {
    case FieldSecret::Password:
        return ApprovalView::Redaction::PasswordField;
    case FieldSecret::OneTimeCode:
        return ApprovalView::Redaction::OneTimeCodeField;
    case FieldSecret::Payment:
        return ApprovalView::Redaction::PaymentField;
    case FieldSecret::None:
        break;
    }
    return ApprovalView::Redaction::None;
}

} // namespace

QString redactionString(ApprovalView::Redaction redaction)
{
    switch (redaction) {
    case ApprovalView::Redaction::None:
        return QString();
    case ApprovalView::Redaction::PasswordField:
        return QStringLiteral("password field");
    case ApprovalView::Redaction::OneTimeCodeField:
        return QStringLiteral("one-time-code field");
    case ApprovalView::Redaction::PaymentField:
        return QStringLiteral("payment field");
    case ApprovalView::Redaction::CredentialShaped:
        return QStringLiteral("credential-shaped value");
    case ApprovalView::Redaction::UndescribedField:
        return QStringLiteral("field cannot be described");
    }
    Q_UNREACHABLE();
    return QString();
}

QString ApprovalView::quote(const QString &websiteText, int maxCodePoints)
{
    QString out = QStringLiteral("\"");
    int codePoints = 0;
    for (qsizetype i = 0; i < websiteText.size(); ++i) {
        if (codePoints == maxCodePoints)
            return out + QStringLiteral("\"...");
        char32_t codePoint = websiteText.at(i).unicode();
        qsizetype units = 1;
        if (websiteText.at(i).isHighSurrogate() && i + 1 < websiteText.size() &&
            websiteText.at(i + 1).isLowSurrogate()) {
            codePoint = QChar::surrogateToUcs4(websiteText.at(i), websiteText.at(i + 1));
            units = 2;
        }
        if (codePoint == U'"' || codePoint == U'\\')
            out += u'\\' + websiteText.at(i);
        else if (mustEscape(codePoint))
            out += escapeCodePoint(codePoint);
        else
            out += websiteText.mid(i, units);
        i += units - 1;
        ++codePoints;
    }
    return out + u'"';
}

QString ApprovalView::roleWordFor(const QString &role)
{
    static const QHash<QString, QString> words{
        {QStringLiteral("button"), QStringLiteral("button")},
        {QStringLiteral("link"), QStringLiteral("link")},
        {QStringLiteral("checkbox"), QStringLiteral("checkbox")},
        {QStringLiteral("radio"), QStringLiteral("radio button")},
        {QStringLiteral("switch"), QStringLiteral("switch")},
        {QStringLiteral("textbox"), QStringLiteral("text field")},
        {QStringLiteral("searchbox"), QStringLiteral("search field")},
        {QStringLiteral("combobox"), QStringLiteral("combo box")},
        {QStringLiteral("listbox"), QStringLiteral("list box")},
        {QStringLiteral("option"), QStringLiteral("option")},
        {QStringLiteral("menuitem"), QStringLiteral("menu item")},
        {QStringLiteral("menuitemcheckbox"), QStringLiteral("menu item")},
        {QStringLiteral("menuitemradio"), QStringLiteral("menu item")},
        {QStringLiteral("tab"), QStringLiteral("tab")},
        {QStringLiteral("slider"), QStringLiteral("slider")},
        {QStringLiteral("spinbutton"), QStringLiteral("number field")},
        {QStringLiteral("treeitem"), QStringLiteral("tree item")},
    };
    return words.value(role, QStringLiteral("element"));
}

const char *const ApprovalView::kAreaNote =
    "It is in an area of the site (administration, settings, account, messages) where a change "
    "can reach the whole site or account.";
const char *const ApprovalView::kSiteSavesNote =
    "After the last action on this control the site tried to save on its own, and was stopped: "
    "it may save automatically. Approving covers this action only.";
const char *const ApprovalView::kOutsideAddressNote =
    "The text is an address on another domain than the site's, typed into a field that forwards, "
    "sends or redirects: it sends to an outside address.";
const char *const ApprovalView::kAddressWritesNote =
    "Opening this address is how the site makes a change (its address names an operation, "
    "carries a token or signs out): nothing is sent unless you approve.";

namespace {

// How the note names a consequence ("looks destructive", "looks like a payment").
QString looksLike(BrowserActionConsequence consequence)
{
    using C = BrowserActionConsequence;
    switch (consequence) {
    case C::Payment:
        return QStringLiteral("like a payment");
    case C::Purchase:
        return QStringLiteral("like a purchase");
    case C::AccountRecovery:
        return QStringLiteral("like account recovery");
    case C::CredentialChange:
        return QStringLiteral("like a password or sign-in change");
    case C::PermissionChange:
        return QStringLiteral("like a permission change");
    case C::LegalAcceptance:
        return QStringLiteral("like accepting legal terms");
    case C::Publication:
        return QStringLiteral("like publishing something");
    case C::Destructive:
        return QStringLiteral("destructive");
    case C::FileTransfer:
        return QStringLiteral("like a file transfer");
    case C::SecuritySettings:
        return QStringLiteral("like a security setting change");
    case C::SignOut:
        return QStringLiteral("like signing you out");
    case C::Submission:
        return QStringLiteral("like sending a form");
    default:
        return QStringLiteral("like a change to the site");
    }
}

// Whether a field's words say it forwards, sends or redirects what is typed into it.
bool forwardingField(const ElementFacts &element)
{
    static const QSet<QString> kWords{
        QStringLiteral("forward"),   QStringLiteral("forwarding"),  QStringLiteral("forwards"),
        QStringLiteral("recipient"), QStringLiteral("recipients"),  QStringLiteral("redirect"),
        QStringLiteral("redirects"), QStringLiteral("redirection"), QStringLiteral("cc"),
        QStringLiteral("bcc"),       QStringLiteral("destination"), QStringLiteral("deliver"),
        QStringLiteral("send"),      QStringLiteral("notify"),      QStringLiteral("webhook")};
    QStringList texts{element.accessibleName, element.visibleText};
    for (const LabelText &label : element.labels)
        texts.append(label.text);
    for (const QString &text : texts) {
        const QStringList words = text.toLower().split(
            QRegularExpression(QStringLiteral("[^\\p{L}\\p{N}]+")), Qt::SkipEmptyParts);
        if (words == QStringList{QStringLiteral("to")})
            return true; // a mail's "To" field
        for (const QString &word : words) {
            if (kWords.contains(word))
                return true;
        }
    }
    return false;
}

// Whether `text` holds an e-mail address or a web address on another registrable domain than
// `pageHost`'s.
bool namesAnotherDomain(const QString &text, const QString &pageHost)
{
    static const QRegularExpression addresses(
        QStringLiteral("(?:[^\\s@]+@|https?://|www\\.)([A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+)"));
    const QString site = PublicSuffix::registrableDomain(pageHost.toLower());
    QRegularExpressionMatchIterator found = addresses.globalMatch(text.left(4096));
    while (found.hasNext()) {
        const QString host = found.next().captured(1).toLower();
        QString domain = PublicSuffix::registrableDomain(host);
        if (domain.isEmpty())
            domain = host;
        if (domain != site)
            return true;
    }
    return false;
}

// Whether a page's path holds an administration, settings, account or other area segment.
bool inArea(const QUrl &page)
{
    const QString path = page.path(QUrl::FullyEncoded);
    for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
        if (!segment.isEmpty() && isAreaPathSegment(segment))
            return true;
    }
    return false;
}

void addNotes(ApprovalView &view, const QStringList &notes)
{
    for (const QString &note : notes) {
        if (view.notes.size() < ApprovalView::kMaxNotes && !view.notes.contains(note))
            view.notes.append(note);
    }
}

} // namespace

ApprovalView ApprovalView::forNavigation(const QUrl &destination,
                                         const std::optional<PageFacts> &from)
{
    ApprovalView view;
    view.kind = QStringLiteral("navigate");
    view.host = hostOf(destination);
    view.path = pathOf(destination);
    view.roleWord = QStringLiteral("address");
    if (from) {
        view.fromPage = quote(from->title);
        view.pageTitle = *view.fromPage;
    }
    BrowserActionConsequence named = queryConsequenceOf(destination);
    if (!isNamedConsequence(named)) {
        const QString path = destination.path(QUrl::FullyEncoded);
        for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
            if (!segment.isEmpty() && isNamedConsequence(pathSegmentConsequence(segment)))
                named = pathSegmentConsequence(segment);
        }
    }
    view.consequence = consequenceString(
        isNamedConsequence(named) ? named : BrowserActionConsequence::StateChange);
    addNotes(view, {QString::fromLatin1(kAddressWritesNote)});
    if (inArea(destination))
        addNotes(view, {QString::fromLatin1(kAreaNote)});
    view.summary =
        QStringLiteral("Open an address that changes the site: ") + view.host + view.path;
    return view;
}

QString ApprovalView::refusalNote(const Refusal &refusal)
{
    QString shown = QString::fromLatin1(refusal.request.method);
    if (!refusal.request.segment.isEmpty())
        shown += QStringLiteral(" .../") + refusal.request.segment;
    if (refusal.late)
        return QStringLiteral("After the last action on this control the site tried to save on "
                              "its own (%1), and was stopped: it may save automatically. "
                              "Approving covers this action only.")
            .arg(shown);
    return QStringLiteral("This control sent a request that looks %1 (%2) when it was tried, and "
                          "it was stopped: approving lets it through.")
        .arg(looksLike(refusal.request.consequence), shown);
}

ApprovalView ApprovalView::build(const ActRequest &request, const PageFacts &page,
                                 const std::optional<ElementFacts> &element,
                                 const QStringList &notes, const std::optional<Refusal> &refusal)
{
    ApprovalView view;
    view.kind = actKindString(request.kind());
    view.host = hostOf(page.url);
    view.path = pathOf(page.url);
    view.pageTitle = quote(page.title);
    view.elementDescribed = element.has_value() && !element->role.isEmpty();
    view.roleWord = view.elementDescribed ? roleWordFor(element->role) : QStringLiteral("element");
    if (view.elementDescribed) {
        view.elementRole = quote(element->role);
        view.accessibleName = quote(element->accessibleName);
        if (!element->visibleText.isEmpty() && element->visibleText != element->accessibleName)
            view.visibleText = quote(element->visibleText);
        if (!element->dialogName.isEmpty())
            view.dialogName = quote(element->dialogName);
        if (!element->selectedOption.isEmpty())
            view.selectedOption = quote(element->selectedOption);
    }
    if (element) {
        const BrowserActionConsequence named = classifyAction(*element, request).consequence;
        if (isNamedConsequence(named))
            view.consequence = consequenceString(named);
    }

    switch (request.kind()) {
    case ActRequest::Kind::Click:
        break;
    case ActRequest::Kind::Select:
        view.option = quote(request.option());
        break;
    case ActRequest::Kind::Check:
        view.checked = request.checked();
        break;
    case ActRequest::Kind::Press:
        view.key = actKeyString(request.key());
        break;
    case ActRequest::Kind::Scroll:
        view.scrollDelta = request.delta();
        break;
    case ActRequest::Kind::Type: {
        const QString &text = request.text();
        view.typedCodePoints = codePointCount(text);
        // What the field is decides first; then what the text looks like; then its length.
        // A field the view cannot describe could be a password field.
        Redaction redaction =
            view.elementDescribed ? fieldRedaction(*element) : Redaction::UndescribedField;
        if (redaction == Redaction::None && CredentialShape::find(text))
            redaction = Redaction::CredentialShaped;
        if (redaction != Redaction::None) {
            view.textDisposition = TextDisposition::Redacted;
            view.redaction = redaction;
        } else if (view.typedCodePoints > kMaxShownTextCodePoints) {
            view.textDisposition = TextDisposition::Digest;
            view.typedText = Sha256::hex(text.toUtf8());
        } else {
            view.textDisposition = TextDisposition::Shown;
            view.typedText = quote(text, kMaxShownTextCodePoints);
        }
        break;
    }
    }

    const QString target = view.elementDescribed ? withArticle(view.roleWord)
                                                 : QStringLiteral("an element it cannot describe");
    if (request.kind() == ActRequest::Kind::Scroll)
        view.summary = QStringLiteral("Scroll ") +
                       (request.delta() > 0 ? QStringLiteral("down ") : QStringLiteral("up ")) +
                       QString::number(std::abs(request.delta())) + QStringLiteral(" pixels at ") +
                       target + QStringLiteral(" on ") + view.host + view.path;
    else
        view.summary =
            verbPhrase(request) + u' ' + target + QStringLiteral(" on ") + view.host + view.path;
    if (refusal) {
        // What the request stage saw leads: it is what approving lets through.
        addNotes(view, {refusalNote(*refusal)});
        if (!refusal->late && view.consequence.isEmpty())
            view.consequence = consequenceString(refusal->request.consequence);
    }
    if (request.kind() == ActRequest::Kind::Type && view.elementDescribed &&
        view.textDisposition == TextDisposition::Shown && forwardingField(*element) &&
        namesAnotherDomain(request.text(), page.url.host(QUrl::FullyEncoded)))
        addNotes(view, {QString::fromLatin1(kOutsideAddressNote)});
    addNotes(view, notes);
    // What is changed in an administration or settings area reaches the whole site.
    if (!view.consequence.isEmpty() && inArea(page.url))
        addNotes(view, {QString::fromLatin1(kAreaNote)});
    return view;
}

QJsonObject ApprovalView::toJson() const
{
    QJsonObject json{{QStringLiteral("summary"), summary},
                     {QStringLiteral("kind"), kind},
                     {QStringLiteral("host"), host},
                     {QStringLiteral("path"), path},
                     {QStringLiteral("page_title"), pageTitle},
                     {QStringLiteral("element_described"), elementDescribed},
                     {QStringLiteral("role_word"), roleWord}};
    if (!consequence.isEmpty())
        json.insert(QStringLiteral("consequence"), consequence);
    if (!notes.isEmpty())
        json.insert(QStringLiteral("notes"), QJsonArray::fromStringList(notes));
    if (fromPage)
        json.insert(QStringLiteral("from_page_title"), *fromPage);
    if (elementDescribed) {
        json.insert(QStringLiteral("element_role"), elementRole);
        json.insert(QStringLiteral("accessible_name"), accessibleName);
    }
    if (visibleText)
        json.insert(QStringLiteral("visible_text"), *visibleText);
    if (dialogName)
        json.insert(QStringLiteral("dialog_name"), *dialogName);
    if (option)
        json.insert(QStringLiteral("option"), *option);
    if (selectedOption)
        json.insert(QStringLiteral("selected_option"), *selectedOption);
    if (checked)
        json.insert(QStringLiteral("checked"), *checked);
    if (key)
        json.insert(QStringLiteral("key"), *key);
    if (scrollDelta)
        json.insert(QStringLiteral("scroll_delta"), *scrollDelta);
    switch (textDisposition) {
    case TextDisposition::None:
        break;
    case TextDisposition::Shown:
        json.insert(QStringLiteral("text"), typedText);
        break;
    case TextDisposition::Redacted:
        json.insert(QStringLiteral("text_redacted"), redactionString(redaction));
        break;
    case TextDisposition::Digest:
        json.insert(QStringLiteral("text_sha256"), typedText);
        json.insert(QStringLiteral("text_code_points"), typedCodePoints);
        break;
    }
    return json;
}

QJsonObject ApprovalView::toAuditJson() const
{
    QJsonObject json = toJson();
    json.remove(QStringLiteral("text"));
    json.remove(QStringLiteral("text_sha256"));
    if (textDisposition != TextDisposition::None)
        json.insert(QStringLiteral("text_code_points"), typedCodePoints);
    return json;
}

QString ApprovalView::toText() const
{
    QStringList lines{summary};
    if (!consequence.isEmpty())
        lines << QStringLiteral("  warning: this reads as %1").arg(consequence);
    for (const QString &note : notes)
        lines << QStringLiteral("  note: ") + note;
    if (kind == QLatin1String("navigate")) {
        lines << QStringLiteral("  action: navigate")
              << QStringLiteral("  address: ") + host + path;
        if (fromPage)
            lines << QStringLiteral("  from the page titled: ") + *fromPage;
        return lines.join(u'\n');
    }
    lines << QStringLiteral("  action: ") + kind << QStringLiteral("  page: ") + host + path
          << QStringLiteral("  page title: ") + pageTitle;
    if (elementDescribed) {
        lines << QStringLiteral("  element role: ") + elementRole
              << QStringLiteral("  element name: ") + accessibleName;
    } else {
        lines << QStringLiteral("  element: cannot describe the element");
    }
    if (visibleText)
        lines << QStringLiteral("  visible text: ") + *visibleText;
    if (dialogName)
        lines << QStringLiteral("  in dialog: ") + *dialogName;
    if (option)
        lines << QStringLiteral("  option: ") + *option;
    if (selectedOption)
        lines << QStringLiteral("  selected option: ") + *selectedOption;
    if (checked)
        lines << QStringLiteral("  set checked: ") +
                     (*checked ? QStringLiteral("yes") : QStringLiteral("no"));
    if (key)
        lines << QStringLiteral("  key: ") + *key;
    if (scrollDelta)
        lines << QStringLiteral("  scroll: %1 %2 pixels")
                     .arg(*scrollDelta > 0 ? QStringLiteral("down") : QStringLiteral("up"))
                     .arg(std::abs(*scrollDelta));
    switch (textDisposition) {
    case TextDisposition::None:
        break;
    case TextDisposition::Shown:
        lines << QStringLiteral("  text: ") + typedText;
        break;
    case TextDisposition::Redacted:
        lines << QStringLiteral("  text: [redacted: ") + redactionString(redaction) + u']';
        break;
    case TextDisposition::Digest:
        lines << QStringLiteral("  text: %1 characters, SHA-256 %2")
                     .arg(typedCodePoints)
                     .arg(typedText);
        break;
    }
    return lines.join(u'\n');
}

} // namespace veetbot
