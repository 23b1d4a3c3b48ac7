#include "SiteVerification.h"

#include "domain/ToolJson.h"
#include "domain/web/LiteralPath.h"
#include "domain/web/Origin.h"
#include "domain/web/TestOverrides.h"
#include "json/StrictJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <tuple>
#include <utility>

namespace veetbot {

namespace {

Error invalid(const char *rule)
{
    return Error{QStringLiteral("site_verification.invalid"), QString::fromLatin1(rule)};
}

const QSet<QString> &regionKinds()
{
    static const QSet<QString> kinds{QStringLiteral("dialog"),  QStringLiteral("alert"),
                                     QStringLiteral("status"),  QStringLiteral("form"),
                                     QStringLiteral("heading"), QStringLiteral("main"),
                                     QStringLiteral("section")};
    return kinds;
}

// White space runs as one space, trimmed: how visible text and the page's lines are compared.
QString collapsed(const QString &text)
{
    return text.simplified();
}

bool isSiteId(const QString &id)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z0-9]+([.-][a-z0-9]+)*$"));
    return id.size() >= 1 && id.size() <= SiteDefinition::kMaxIdUnits &&
           pattern.match(id).hasMatch();
}

std::optional<QString> text(const QJsonObject &object, const char *key)
{
    const std::optional<QString> value =
        ToolJson::string(object.value(QLatin1String(key)), 1, SiteDefinition::kMaxTextUnits);
    if (!value || collapsed(*value) != *value)
        return std::nullopt; // written as compared: one line, no edge or doubled white space
    return value;
}

// {kind: region, region_kind, name}: the region's kind and name, or nothing.
std::optional<std::pair<QString, QString>> regionOf(const QJsonObject &object)
{
    const std::optional<QString> name = text(object, "name");
    const QString regionKind = object.value(QLatin1String("region_kind")).toString();
    if (!ToolJson::hasOnlyKeys(object, {"kind", "region_kind", "name"},
                               {"kind", "region_kind", "name"}) ||
        !name || !regionKinds().contains(regionKind))
        return std::nullopt;
    return std::pair{regionKind, *name};
}

Result<SiteDefinition::Ready> readyOf(const QJsonValue &value)
{
    const Error refused = invalid("A definition's ready evidence is {kind: text, text} or {kind: "
                                  "region, region_kind, name}.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    SiteDefinition::Ready ready;
    const QString kind = object.value(QLatin1String("kind")).toString();
    if (kind == QLatin1String("text")) {
        const std::optional<QString> line = text(object, "text");
        if (!ToolJson::hasOnlyKeys(object, {"kind", "text"}, {"kind", "text"}) || !line)
            return refused;
        ready.kind = SiteDefinition::Ready::Kind::Text;
        ready.text = *line;
        return ready;
    }
    if (kind == QLatin1String("region")) {
        const std::optional<std::pair<QString, QString>> region = regionOf(object);
        if (!region)
            return refused;
        ready.kind = SiteDefinition::Ready::Kind::Region;
        std::tie(ready.regionKind, ready.name) = *region;
        return ready;
    }
    return refused;
}

Result<SiteDefinition::Account> accountOf(const QJsonValue &value)
{
    const Error refused = invalid("A definition's account evidence is {kind: control, role: "
                                  "button or link, name, text} or {kind: region, region_kind, "
                                  "name}.");
    if (!value.isObject())
        return refused;
    const QJsonObject object = value.toObject();
    SiteDefinition::Account account;
    const QString kind = object.value(QLatin1String("kind")).toString();
    if (kind == QLatin1String("control")) {
        const QString role = object.value(QLatin1String("role")).toString();
        const std::optional<QString> name = text(object, "name");
        const std::optional<QString> visible = text(object, "text");
        if (!ToolJson::hasOnlyKeys(object, {"kind", "role", "name", "text"},
                                   {"kind", "role", "name", "text"}) ||
            (role != QLatin1String("button") && role != QLatin1String("link")) || !name || !visible)
            return refused;
        account.kind = SiteDefinition::Account::Kind::Control;
        account.role = role;
        account.name = *name;
        account.text = *visible;
        return account;
    }
    if (kind == QLatin1String("region")) {
        const std::optional<std::pair<QString, QString>> region = regionOf(object);
        if (!region)
            return refused;
        account.kind = SiteDefinition::Account::Kind::Region;
        std::tie(account.regionKind, account.name) = *region;
        return account;
    }
    return refused;
}

Result<SiteDefinition> definitionOf(const QJsonValue &value, const TestOverrides &overrides)
{
    if (!value.isObject() ||
        !ToolJson::hasOnlyKeys(
            value.toObject(),
            {"id", "version", "profile_id", "origin", "protected_path", "ready", "account"},
            {"id", "version", "profile_id", "origin", "protected_path", "ready", "account"}))
        return invalid("A definition has exactly id, version, profile_id, origin, "
                       "protected_path, ready and account.");
    const QJsonObject object = value.toObject();
    SiteDefinition definition;
    definition.id = object.value(QLatin1String("id")).toString();
    if (!isSiteId(definition.id))
        return invalid("A definition's id is 1 to 64 lower-case letters and digits, in words "
                       "joined by \".\" or \"-\".");
    const QJsonValue version = object.value(QLatin1String("version"));
    if (!version.isDouble() || version.toDouble() != double(version.toInt()) ||
        version.toInt() < 1 || version.toInt() > 1000000)
        return invalid("A definition's version is an integer from 1 to 1000000.");
    definition.version = version.toInt();
    const QString profile = object.value(QLatin1String("profile_id")).toString();
    definition.profileId = QUuid::fromString(profile);
    if (profile.size() != 36 || definition.profileId.isNull())
        return invalid("A definition's profile_id is a profile's id (36 characters).");
    const Result<Origin> origin =
        Origin::parse(object.value(QLatin1String("origin")).toString(), overrides);
    if (!object.value(QLatin1String("origin")).isString() || !origin)
        return invalid("A definition's origin is one public HTTPS origin.");
    definition.origin = origin->toString();
    definition.protectedPath = object.value(QLatin1String("protected_path")).toString();
    if (!isLiteralPath(definition.protectedPath, SiteDefinition::kMaxPathUnits))
        return invalid("A definition's protected_path begins with \"/\" and holds at most 512 "
                       "literal URL characters: no \"//\", no \".\" or \"..\" segment, no "
                       "percent sign, back slash, fragment, brace or white space.");
    Result<SiteDefinition::Ready> ready = readyOf(object.value(QLatin1String("ready")));
    if (!ready)
        return ready.error();
    definition.ready = *ready;
    Result<SiteDefinition::Account> account = accountOf(object.value(QLatin1String("account")));
    if (!account)
        return account.error();
    definition.account = *account;
    return definition;
}

// The one element of this role and exact name, or nothing (none, or more than one).
const ElementRecord *soleElement(const BrowserObservation &observation, const QString &role,
                                 const QString &name)
{
    const ElementRecord *found = nullptr;
    for (const ElementRecord &element : observation.elements) {
        if (element.role != role || element.name != name)
            continue;
        if (found)
            return nullptr;
        found = &element;
    }
    return found;
}

bool soleRegion(const BrowserObservation &observation, const QString &kind, const QString &name)
{
    int matching = 0;
    for (const RegionRecord &region : observation.regions)
        matching += region.kind == kind && region.name == name;
    return matching == 1;
}

bool readySeen(const SiteDefinition::Ready &ready, const BrowserObservation &observation)
{
    if (ready.kind == SiteDefinition::Ready::Kind::Region)
        return soleRegion(observation, ready.regionKind, ready.name);
    // A whole line of the visible text: a word inside another line is no evidence.
    const QStringList lines = observation.text.split(u'\n');
    return std::any_of(lines.cbegin(), lines.cend(),
                       [&](const QString &line) { return collapsed(line) == ready.text; });
}

bool accountSeen(const SiteDefinition::Account &account, const BrowserObservation &observation,
                 const ElementFactsLookup &lookup)
{
    if (account.kind == SiteDefinition::Account::Kind::Region)
        return soleRegion(observation, account.regionKind, account.name);
    const ElementRecord *element = soleElement(observation, account.role, account.name);
    if (!element || !lookup)
        return false;
    // The browser's private facts of the same capture: the control shows exactly the
    // account's text, read whole, and is no field a page could have filled with it.
    const std::optional<ElementFacts> facts = lookup(element->ref);
    if (!facts || facts->role != account.role || facts->accessibleName != account.name ||
        facts->fieldKind != FieldKind::None || !facts->visibleTextWhole)
        return false;
    for (const LabelText &label : facts->labels) {
        if (!label.whole)
            return false;
    }
    const QString visible =
        facts->visibleText.isEmpty() ? facts->accessibleName : facts->visibleText;
    return collapsed(visible) == account.text;
}

} // namespace

namespace {

const QString kMask = QStringLiteral("\u2022\u2022\u2022"); // •••

// The first or the last character of `text`, a surrogate pair kept whole.
QString firstCharacter(const QString &text)
{
    return text.left(text.size() > 1 && text.at(0).isHighSurrogate() ? 2 : 1);
}
QString lastCharacter(const QString &text)
{
    return text.right(text.size() > 1 && text.back().isLowSurrogate() ? 2 : 1);
}

// "local@domain" with both parts, as "l•••@domain"; anything else unchanged.
std::optional<QString> maskedAddress(const QString &word)
{
    const qsizetype at = word.indexOf(QLatin1Char('@'));
    if (at <= 0 || at == word.size() - 1 || word.indexOf(QLatin1Char('@'), at + 1) >= 0)
        return std::nullopt;
    return firstCharacter(word.left(at)) + kMask + word.mid(at);
}

} // namespace

QString SiteDefinition::accountLabel() const
{
    const QString label = account.kind == Account::Kind::Control ? account.text : account.name;
    QStringList words = label.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    bool masked = false;
    for (QString &word : words) {
        if (const std::optional<QString> address = maskedAddress(word)) {
            word = *address;
            masked = true;
        }
    }
    QString shown = words.join(QLatin1Char(' '));
    if (!masked) {
        shown = firstCharacter(label) + kMask;
        if (label.toUcs4().size() >= 4)
            shown += lastCharacter(label);
    }
    if (shown.size() > kMaxAccountLabelLength) {
        shown.truncate(kMaxAccountLabelLength - 1);
        if (shown.back().isHighSurrogate())
            shown.chop(1);
        shown += QChar(0x2026); // …
    }
    return shown;
}

QUrl SiteDefinition::protectedUrl() const
{
    return literalUrl(QUrl(origin), protectedPath); // the origin as parse() wrote it
}

Result<SiteCatalog> SiteCatalog::parse(const QByteArray &json, const TestOverrides &overrides)
{
    if (json.size() > kMaxFileBytes)
        return invalid("The verification file is at most 64 KiB.");
    StrictJson::Limits limits;
    limits.maxBytes = kMaxFileBytes;
    limits.maxDepth = 6;
    limits.maxMembers = 64;
    const std::optional<QJsonValue> parsed = StrictJson::parse(json, limits);
    if (!parsed || !parsed->isObject())
        return invalid("The verification file is one strict JSON object.");
    const QJsonObject top = parsed->toObject();
    if (!ToolJson::hasOnlyKeys(top, {"version", "sites"}, {"version", "sites"}) ||
        top.value(QLatin1String("version")) != QJsonValue(1) ||
        !top.value(QLatin1String("sites")).isArray())
        return invalid("The verification file is {version: 1, sites: [...]}.");
    const QJsonArray sites = top.value(QLatin1String("sites")).toArray();
    if (sites.size() > kMaxSites)
        return invalid("The verification file holds at most 32 definitions.");
    SiteCatalog catalog;
    QSet<QUuid> profiles;
    QSet<QString> ids;
    for (const QJsonValue &site : sites) {
        Result<SiteDefinition> definition = definitionOf(site, overrides);
        if (!definition)
            return definition.error();
        if (profiles.contains(definition->profileId))
            return invalid("Each profile has at most one definition.");
        if (ids.contains(definition->id))
            return invalid("Each definition has its own id.");
        profiles.insert(definition->profileId);
        ids.insert(definition->id);
        catalog.m_sites.append(std::move(definition).value());
    }
    return catalog;
}

const SiteDefinition *SiteCatalog::forProfile(const QUuid &profile) const
{
    for (const SiteDefinition &site : m_sites) {
        if (site.profileId == profile)
            return &site;
    }
    return nullptr;
}

SiteReading readSite(const SiteDefinition &definition, const BrowserObservation &observation,
                     const ElementFactsLookup &facts)
{
    SiteReading reading;
    // An observation a bound cut short may have missed what would contradict it.
    const bool whole = !observation.textCoverage.nodeLimitReached &&
                       !observation.textCoverage.textLimitReached &&
                       !observation.coverage.scanLimitReached;
    reading.readySeen = whole && readySeen(definition.ready, observation);
    reading.accountSeen = whole && accountSeen(definition.account, observation, facts);
    reading.verdict = !reading.readySeen    ? SiteReading::Verdict::NotReady
                      : reading.accountSeen ? SiteReading::Verdict::Verified
                                            : SiteReading::Verdict::WrongAccount;
    return reading;
}

Error siteVerificationError(const QString &code)
{
    if (code == QLatin1String("site_verification.file_not_private"))
        return Error{code, QStringLiteral("The site verification file must be an absolute path "
                                          "to a regular file of this user with mode 0600, not a "
                                          "symbolic link.")};
    return Error{QStringLiteral("site_verification.invalid"),
                 QStringLiteral("The site verification file does not follow version 1.")};
}

} // namespace veetbot
