// The model projection: each rule on its own, then thousands of generated observations at
// 1 KiB, 2 KiB, 4 KiB, 16 KiB and random budgets, checked against the canonical observation
// by an independent oracle (valid JSON, within budget, whole records, exact revision, and a
// continuation that never skips a control the model did not see).

#include "domain/observation/BrowserObservation.h"
#include "domain/web/TestOverrides.h"
#include "tools/ModelProjection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

using namespace veetbot;

namespace {

const QString kEllipsis = QString(QChar(0x2026));

// Reference compact serializer: minimal JSON escaping ('"', '\\', U+0000..U+001F, short
// forms where JSON has them), UTF-8 otherwise, integers only. The length of the compact
// serialization is independent of member order, so it measures what the model receives.
void appendCompact(QByteArray &out, const QJsonValue &value);

QByteArray compactString(const QString &text)
{
    QByteArray out;
    out.append('"');
    qsizetype start = 0;
    const auto flush = [&](qsizetype end) { out.append(text.mid(start, end - start).toUtf8()); };
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t u = text.at(i).unicode();
        QByteArray escape;
        switch (u) {
        case u'"':
            escape = "\\\"";
            break;
        case u'\\':
            escape = "\\\\";
            break;
        case u'\b':
            escape = "\\b";
            break;
        case u'\f':
            escape = "\\f";
            break;
        case u'\n':
            escape = "\\n";
            break;
        case u'\r':
            escape = "\\r";
            break;
        case u'\t':
            escape = "\\t";
            break;
        default:
            if (u < 0x20)
                escape = "\\u00" + QByteArray::number(u, 16).rightJustified(2, '0');
        }
        if (!escape.isEmpty()) {
            flush(i);
            out.append(escape);
            start = i + 1;
        }
    }
    flush(text.size());
    out.append('"');
    return out;
}

void appendCompact(QByteArray &out, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        out.append("null");
        return;
    case QJsonValue::Bool:
        out.append(value.toBool() ? "true" : "false");
        return;
    case QJsonValue::Double:
        out.append(QByteArray::number(qint64(value.toDouble())));
        return;
    case QJsonValue::String:
        out.append(compactString(value.toString()));
        return;
    case QJsonValue::Array: {
        out.append('[');
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (i > 0)
                out.append(',');
            appendCompact(out, array.at(i));
        }
        out.append(']');
        return;
    }
    case QJsonValue::Object: {
        out.append('{');
        const QJsonObject object = value.toObject();
        bool first = true;
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!first)
                out.append(',');
            first = false;
            out.append(compactString(it.key()));
            out.append(':');
            appendCompact(out, it.value());
        }
        out.append('}');
        return;
    }
    case QJsonValue::Undefined:
        break;
    }
    out.append("undefined");
}

qsizetype compactSize(const QJsonObject &object)
{
    QByteArray out;
    appendCompact(out, object);
    return out.size();
}

qint64 utf8Bytes(const QString &text)
{
    return text.toUtf8().size();
}

// The display cut, written independently of the implementation: the longest prefix of whole
// code points whose UTF-8 form leaves room for the three-byte ellipsis.
QString displayCut(const QString &text, int limit, bool *cut)
{
    *cut = utf8Bytes(text) > limit;
    if (!*cut)
        return text;
    qsizetype units = 0;
    qint64 bytes = 0;
    while (units < text.size()) {
        const int step = text.at(units).isHighSurrogate() ? 2 : 1;
        const qint64 size = utf8Bytes(text.mid(units, step));
        if (bytes + size > limit - 3)
            break;
        bytes += size;
        units += step;
    }
    return text.left(units) + kEllipsis;
}

QJsonObject envelope(const QJsonObject &observation)
{
    return QJsonObject{{QStringLiteral("trust"), QStringLiteral("EXTERNAL_UNTRUSTED")},
                       {QStringLiteral("source"), QStringLiteral("website")},
                       {QStringLiteral("observation"), observation}};
}

// The canonical element record as the model may see it: the name cut to the display limit,
// the state without its default members (false, null), left out when nothing remains.
QJsonObject expectedRecord(const QJsonObject &canonical)
{
    QJsonObject record = canonical;
    bool cut = false;
    record.insert(QStringLiteral("name"),
                  displayCut(canonical.value(QStringLiteral("name")).toString(), 256, &cut));
    if (cut)
        record.insert(QStringLiteral("name_truncated"), true);
    QJsonObject state = canonical.value(QStringLiteral("state")).toObject();
    for (const char *flag : {"disabled", "required"}) { // default false
        if (state.value(QLatin1String(flag)) == QJsonValue(false))
            state.remove(QLatin1String(flag));
    }
    for (const char *tristate : {"checked", "selected", "expanded"}) { // default null
        if (state.value(QLatin1String(tristate)).isNull())
            state.remove(QLatin1String(tristate));
    }
    if (state.isEmpty())
        record.remove(QStringLiteral("state"));
    else
        record.insert(QStringLiteral("state"), state);
    return record;
}

// The compact coverage records expanded back to their canonical form.
QJsonObject expandCoverage(QJsonObject compact)
{
    if (!compact.contains(QStringLiteral("next_cursor")))
        compact.insert(QStringLiteral("next_cursor"), QJsonValue::Null);
    if (!compact.contains(QStringLiteral("scan_limit_reached")))
        compact.insert(QStringLiteral("scan_limit_reached"), false);
    return compact;
}

QJsonObject expandTextCoverage(QJsonObject compact)
{
    for (const char *flag : {"node_limit_reached", "text_limit_reached"}) {
        if (!compact.contains(QLatin1String(flag)))
            compact.insert(QLatin1String(flag), false);
    }
    if (!compact.contains(QStringLiteral("omitted_text_bytes")))
        compact.insert(QStringLiteral("omitted_text_bytes"), 0);
    return compact;
}

// Sets (or removes when zero / absent) the bookkeeping of a view with `exposed` records.
void setContinuation(QJsonObject &view, const QJsonArray &canonicalElements, int exposed,
                     const QJsonValue &cursor)
{
    const int count = int(canonicalElements.size());
    QJsonArray records;
    for (int i = 0; i < exposed; ++i)
        records.append(expectedRecord(canonicalElements.at(i).toObject()));
    view.insert(QStringLiteral("elements"), records);
    view.remove(QStringLiteral("expansion_blocked"));
    view.remove(QStringLiteral("next_observe"));
    view.remove(QStringLiteral("omitted_elements"));
    if (exposed < count)
        view.insert(QStringLiteral("omitted_elements"), count - exposed);
    if (exposed == 0 && count > 0)
        view.insert(QStringLiteral("expansion_blocked"),
                    QStringLiteral("inline_control_too_large"));
    else if (exposed < count)
        view.insert(
            QStringLiteral("next_observe"),
            QJsonObject{
                {QStringLiteral("after"),
                 canonicalElements.at(exposed - 1).toObject().value(QStringLiteral("ref"))}});
    else if (cursor.isString())
        view.insert(QStringLiteral("next_observe"),
                    QJsonObject{{QStringLiteral("cursor"), cursor}});
    // The compact coverage shows the provider cursor only with the whole window.
    QJsonObject coverage = view.value(QStringLiteral("coverage")).toObject();
    coverage.remove(QStringLiteral("next_cursor"));
    if (exposed == count && cursor.isString())
        coverage.insert(QStringLiteral("next_cursor"), cursor);
    view.insert(QStringLiteral("coverage"), coverage);
}

// Shows `shown` of the canonical text (a prefix), with the omission count and, for a focused
// observation, the next focused read past what is shown.
void setText(QJsonObject &view, const QJsonObject &canonical, const QString &shown)
{
    const qint64 canonicalTextBytes = utf8Bytes(canonical.value(QStringLiteral("text")).toString());
    const qint64 shownBytes = utf8Bytes(shown);
    for (const char *key : {"text", "omitted_text_bytes", "next_text"})
        view.remove(QLatin1String(key));
    if (!shown.isEmpty())
        view.insert(QStringLiteral("text"), shown);
    if (canonicalTextBytes > shownBytes) {
        view.insert(QStringLiteral("omitted_text_bytes"), double(canonicalTextBytes - shownBytes));
        if (canonical.contains(QStringLiteral("focus"))) {
            const QJsonObject focus = canonical.value(QStringLiteral("focus")).toObject();
            view.insert(
                QStringLiteral("next_text"),
                QJsonObject{
                    {QStringLiteral("region_ref"), focus.value(QStringLiteral("region_ref"))},
                    {QStringLiteral("expected_revision"),
                     canonical.value(QStringLiteral("revision"))},
                    {QStringLiteral("text_offset"),
                     focus.value(QStringLiteral("text_offset")).toDouble() + double(shownBytes)}});
        }
    }
}

void dropText(QJsonObject &view, const QJsonObject &canonical)
{
    setText(view, canonical, QString());
}

// The canonical region record as the model may see it: name and summary cut to their display
// limits, empty members left out; in the label form the summary is said to be left out.
QJsonObject expectedRegion(const QJsonObject &canonical, bool label)
{
    QJsonObject record{{QStringLiteral("ref"), canonical.value(QStringLiteral("ref"))},
                       {QStringLiteral("kind"), canonical.value(QStringLiteral("kind"))}};
    const QString name = canonical.value(QStringLiteral("name")).toString();
    if (!name.isEmpty()) {
        bool cut = false;
        record.insert(QStringLiteral("name"), displayCut(name, 256, &cut));
        if (cut)
            record.insert(QStringLiteral("name_truncated"), true);
    }
    if (canonical.contains(QStringLiteral("level")))
        record.insert(QStringLiteral("level"), canonical.value(QStringLiteral("level")));
    const QString summary = canonical.value(QStringLiteral("summary")).toString();
    if (!summary.isEmpty() && label) {
        record.insert(QStringLiteral("summary_omitted"), true);
    } else if (!summary.isEmpty()) {
        bool cut = false;
        record.insert(QStringLiteral("summary"), displayCut(summary, 256, &cut));
        if (cut || canonical.value(QStringLiteral("summary_truncated")).toBool())
            record.insert(QStringLiteral("summary_truncated"), true);
    }
    return record;
}

// Exposes the first `exposed` canonical regions with the omission count; `label`: the single
// exposed region in its label form.
void setRegions(QJsonObject &view, const QJsonObject &canonical, int exposed, bool label = false)
{
    const QJsonArray regions = canonical.value(QStringLiteral("regions")).toArray();
    QJsonArray records;
    for (int i = 0; i < exposed; ++i)
        records.append(expectedRegion(regions.at(i).toObject(), label && exposed == 1));
    view.insert(QStringLiteral("regions"), records);
    view.remove(QStringLiteral("omitted_regions"));
    const int omitted = canonical.value(QStringLiteral("region_coverage"))
                            .toObject()
                            .value(QStringLiteral("omitted_regions"))
                            .toInt() +
                        int(regions.size()) - exposed;
    if (omitted > 0)
        view.insert(QStringLiteral("omitted_regions"), omitted);
}

#define EXPECT(condition, what)                                                                    \
    do {                                                                                           \
        if (!(condition))                                                                          \
            return QStringLiteral(what);                                                           \
    } while (false)

// Every rule the model relies on, checked from the bytes and the canonical observation only.
QString verify(const BrowserObservation &observation, const QJsonObject &canonical, int budget,
               const QByteArray &bytes)
{
    EXPECT(bytes.size() <= budget, "over budget");
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    EXPECT(error.error == QJsonParseError::NoError && document.isObject(), "not valid JSON");
    const QJsonObject root = document.object();
    EXPECT(compactSize(root) == bytes.size(), "not the compact serialization");
    EXPECT(root.size() == 3 &&
               root.value(QStringLiteral("trust")) == QStringLiteral("EXTERNAL_UNTRUSTED") &&
               root.value(QStringLiteral("source")) == QStringLiteral("website") &&
               root.value(QStringLiteral("observation")).isObject(),
           "wrong envelope");
    EXPECT(bytes.startsWith(R"({"trust":"EXTERNAL_UNTRUSTED","source":"website","observation":{)"),
           "envelope order");
    const QJsonObject view = root.value(QStringLiteral("observation")).toObject();
    const QJsonArray canonicalElements = canonical.value(QStringLiteral("elements")).toArray();
    const int count = int(canonicalElements.size());

    if (view.contains(QStringLiteral("omitted"))) {
        EXPECT(view ==
                   QJsonObject({{QStringLiteral("omitted"), QStringLiteral("whole_observation")},
                                {QStringLiteral("reason"), QStringLiteral("budget")}}),
               "whole-observation omission carries something else");
        return QString();
    }
    EXPECT(view.value(QStringLiteral("revision")) == canonical.value(QStringLiteral("revision")),
           "revision changed");
    EXPECT(view.value(QStringLiteral("readiness")) == canonical.value(QStringLiteral("readiness")),
           "readiness changed");
    EXPECT(view.value(QStringLiteral("wait_for")) == canonical.value(QStringLiteral("wait_for")),
           "wait_for outcome changed");
    EXPECT(view.value(QStringLiteral("action")) == canonical.value(QStringLiteral("action")),
           "action outcome changed");
    if (canonical.contains(QStringLiteral("confirmed_draft"))) {
        // Whole within a quarter of the budget, else said to be there; a draft that fits may
        // also be left out when the observation would not fit with it.
        const QString draft = canonical.value(QStringLiteral("confirmed_draft")).toString();
        const bool fits = compactString(draft).size() + 18 <= budget / 4;
        EXPECT(view.contains(QStringLiteral("confirmed_draft")) !=
                   view.contains(QStringLiteral("confirmed_draft_omitted")),
               "confirmed draft neither shown nor said to be there");
        EXPECT(!view.contains(QStringLiteral("confirmed_draft")) ||
                   (fits && view.value(QStringLiteral("confirmed_draft")).toString() == draft),
               "confirmed draft shown wrongly");
        EXPECT(!view.contains(QStringLiteral("confirmed_draft_omitted")) ||
                   view.value(QStringLiteral("confirmed_draft_omitted")) == true,
               "confirmed_draft_omitted is not true");
    } else {
        EXPECT(!view.contains(QStringLiteral("confirmed_draft")) &&
                   !view.contains(QStringLiteral("confirmed_draft_omitted")),
               "a draft that was not confirmed");
    }
    EXPECT(view.value(QStringLiteral("focus")) == canonical.value(QStringLiteral("focus")),
           "focus changed");

    // Regions: a prefix of whole records, the rest counted; compact coverage.
    const bool hasRegions = canonical.contains(QStringLiteral("region_coverage"));
    const QJsonArray canonicalRegions = canonical.value(QStringLiteral("regions")).toArray();
    int exposedRegions = 0;
    bool regionLabel = false;
    if (hasRegions) {
        EXPECT(view.value(QStringLiteral("regions")).isArray(), "no regions array");
        const QJsonArray regions = view.value(QStringLiteral("regions")).toArray();
        exposedRegions = int(regions.size());
        EXPECT(exposedRegions <= canonicalRegions.size(), "more regions than canonical");
        regionLabel = exposedRegions == 1 &&
                      regions.at(0).toObject().contains(QStringLiteral("summary_omitted"));
        QJsonObject expected = view;
        setRegions(expected, canonical, exposedRegions, regionLabel);
        EXPECT(expected.value(QStringLiteral("regions")) == view.value(QStringLiteral("regions")),
               "region record differs from the canonical one");
        EXPECT(expected.value(QStringLiteral("omitted_regions")) ==
                   view.value(QStringLiteral("omitted_regions")),
               "omitted region count wrong");
        const QJsonObject canonicalCoverage =
            canonical.value(QStringLiteral("region_coverage")).toObject();
        QJsonObject compact{
            {QStringLiteral("version"), canonicalCoverage.value(QStringLiteral("version"))},
            {QStringLiteral("scope"), canonicalCoverage.value(QStringLiteral("scope"))}};
        if (canonicalCoverage.value(QStringLiteral("scan_exhausted")).toBool())
            compact.insert(QStringLiteral("scan_exhausted"), true);
        EXPECT(view.value(QStringLiteral("region_coverage")) == compact,
               "region coverage not compact or lost");
    } else {
        for (const char *key : {"regions", "omitted_regions", "region_coverage"})
            EXPECT(!view.contains(QLatin1String(key)), "regions without canonical regions");
    }
    // Coverage survives, except the provider cursor while controls of the window are not
    // shown: it would continue past them.
    const int shownElements = int(view.value(QStringLiteral("elements")).toArray().size());
    QJsonObject canonicalCoverage = canonical.value(QStringLiteral("coverage")).toObject();
    if (shownElements < canonical.value(QStringLiteral("elements")).toArray().size())
        canonicalCoverage.insert(QStringLiteral("next_cursor"), QJsonValue::Null);
    EXPECT(expandCoverage(view.value(QStringLiteral("coverage")).toObject()) == canonicalCoverage,
           "coverage lost, or a cursor past unseen controls");
    const QJsonObject textCoverage = view.value(QStringLiteral("text_coverage")).toObject();
    EXPECT(textCoverage.contains(QStringLiteral("version")) &&
               textCoverage.contains(QStringLiteral("scope")),
           "text coverage without version or scope");
    EXPECT(expandTextCoverage(textCoverage) ==
               canonical.value(QStringLiteral("text_coverage")).toObject(),
           "text coverage lost");
    for (const QJsonObject &coverage :
         {view.value(QStringLiteral("coverage")).toObject(), textCoverage}) {
        for (auto it = coverage.begin(); it != coverage.end(); ++it) {
            EXPECT(it.value() != QJsonValue(false) && !it.value().isNull(), "default flag kept");
            EXPECT(it.key() != QStringLiteral("omitted_text_bytes") || it.value().toDouble() != 0,
                   "zero omission count kept");
        }
    }

    // Location and title: exact or cut to the display limit, or explicitly left out.
    const QString url = canonical.value(QStringLiteral("url")).toString();
    if (view.contains(QStringLiteral("url")))
        EXPECT(view.value(QStringLiteral("url")).toString() == url &&
                   !view.contains(QStringLiteral("url_omitted")),
               "url changed");
    else
        EXPECT(url.isEmpty() == !view.contains(QStringLiteral("url_omitted")) &&
                   (url.isEmpty() || view.value(QStringLiteral("url_omitted")) == true),
               "url left out silently");
    const QString title = observation.title;
    if (view.contains(QStringLiteral("title"))) {
        bool cut = false;
        const QString expected = displayCut(title, 128, &cut);
        EXPECT(view.value(QStringLiteral("title")).toString() == expected, "title cut wrongly");
        EXPECT(utf8Bytes(expected) <= 128, "title over its display limit");
        EXPECT(cut == view.contains(QStringLiteral("title_truncated")) &&
                   (!cut || view.value(QStringLiteral("title_truncated")) == true),
               "title_truncated wrong");
        EXPECT(!view.contains(QStringLiteral("title_omitted")), "title both shown and omitted");
    } else {
        EXPECT(title.isEmpty() == !view.contains(QStringLiteral("title_omitted")) &&
                   (title.isEmpty() || view.value(QStringLiteral("title_omitted")) == true),
               "title left out silently");
        EXPECT(!view.contains(QStringLiteral("title_truncated")), "flag without title");
    }

    // Elements: a prefix of canonical order, each record whole.
    EXPECT(view.value(QStringLiteral("elements")).isArray(), "no elements array");
    const QJsonArray elements = view.value(QStringLiteral("elements")).toArray();
    const int exposed = int(elements.size());
    EXPECT(exposed <= count, "more elements than the canonical observation");
    for (int i = 0; i < exposed; ++i) {
        const QJsonObject record = elements.at(i).toObject();
        EXPECT(record == expectedRecord(canonicalElements.at(i).toObject()),
               "element record differs from the canonical one");
        EXPECT(utf8Bytes(record.value(QStringLiteral("name")).toString()) <= 256,
               "name over its display limit");
    }
    const int omitted = view.value(QStringLiteral("omitted_elements")).toInt(0);
    EXPECT(omitted == count - exposed, "omitted element count wrong");
    EXPECT(!view.contains(QStringLiteral("omitted_elements")) || omitted > 0,
           "zero omission count kept");
    const bool blocked = view.contains(QStringLiteral("expansion_blocked"));
    EXPECT(blocked == (count > 0 && exposed == 0), "expansion_blocked wrong");
    EXPECT(!blocked || view.value(QStringLiteral("expansion_blocked")) ==
                           QStringLiteral("inline_control_too_large"),
           "expansion_blocked reason");

    // Continuation never skips a control the model did not see.
    const QJsonValue cursor =
        canonical.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("next_cursor"));
    if (view.contains(QStringLiteral("next_observe"))) {
        const QJsonObject next = view.value(QStringLiteral("next_observe")).toObject();
        EXPECT(next.size() == 1, "next_observe is not one complete request");
        if (next.contains(QStringLiteral("after"))) {
            const QJsonValue after = next.value(QStringLiteral("after"));
            int index = -1;
            for (int i = 0; i < count; ++i) {
                if (canonicalElements.at(i).toObject().value(QStringLiteral("ref")) == after)
                    index = i;
            }
            EXPECT(index >= 0 && index < exposed, "after names a control the model did not see");
            QSet<QString> seen;
            for (const QJsonValue &element : elements)
                seen.insert(element.toObject().value(QStringLiteral("ref")).toString());
            for (int i = 0; i <= index; ++i)
                EXPECT(
                    seen.contains(
                        canonicalElements.at(i).toObject().value(QStringLiteral("ref")).toString()),
                    "after skips a control the model did not see");
            EXPECT(index == exposed - 1 && exposed < count,
                   "after is not the last exposed control");
        } else {
            EXPECT(next.value(QStringLiteral("cursor")) == cursor && cursor.isString(),
                   "cursor is not the provider cursor");
            EXPECT(exposed == count, "cursor used although controls were omitted");
        }
    } else {
        EXPECT(blocked || (exposed == count && cursor.isNull()),
               "no continuation although something remains");
    }

    // Prose: a prefix of whole code points, the rest counted.
    const QString text = view.value(QStringLiteral("text")).toString();
    EXPECT(!view.contains(QStringLiteral("text")) || !text.isEmpty(), "empty text kept");
    EXPECT(observation.text.startsWith(text), "text is not a prefix of the canonical text");
    EXPECT(text.isEmpty() || !text.back().isHighSurrogate(), "text splits a surrogate pair");
    const qint64 canonicalTextBytes = utf8Bytes(observation.text);
    const qint64 omittedText = qint64(view.value(QStringLiteral("omitted_text_bytes")).toDouble(0));
    EXPECT(omittedText == canonicalTextBytes - utf8Bytes(text), "omitted text count wrong");
    EXPECT(!view.contains(QStringLiteral("omitted_text_bytes")) || omittedText > 0,
           "zero text omission kept");
    {
        // A focused read continues exactly past the text shown, as a complete request.
        QJsonObject expected = view;
        setText(expected, canonical, text);
        EXPECT(expected.value(QStringLiteral("next_text")) ==
                   view.value(QStringLiteral("next_text")),
               "next_text is not the focused read past the shown text");
    }

    // Priorities. Text comes last: one more code point would not have fit.
    if (text.size() < observation.text.size()) {
        const int step = observation.text.at(text.size()).isHighSurrogate() ? 2 : 1;
        QJsonObject longer = view;
        setText(longer, canonical, observation.text.left(text.size() + step));
        EXPECT(compactSize(envelope(longer)) > budget, "text cut although more fitted");
    }
    // Controls before prose: one more control would not have fit even without the prose.
    if (!blocked && exposed < count) {
        QJsonObject more = view;
        dropText(more, canonical);
        if (hasRegions) // only the reserved first region label comes before more controls
            setRegions(more, canonical, qMin(exposedRegions, 1), true);
        setContinuation(more, canonicalElements, exposed + 1, cursor);
        EXPECT(compactSize(envelope(more)) > budget, "controls omitted although one more fitted");
    }
    // Regions before prose: one more region would not have fit even without the prose.
    if (hasRegions && exposedRegions < canonicalRegions.size()) {
        QJsonObject more = view;
        dropText(more, canonical);
        setRegions(more, canonical, exposedRegions + 1);
        EXPECT(compactSize(envelope(more)) > budget, "regions omitted although one more fitted");
    }
    if (regionLabel) {
        QJsonObject whole = view;
        dropText(whole, canonical);
        setRegions(whole, canonical, 1);
        EXPECT(compactSize(envelope(whole)) > budget, "label kept although the record fitted");
    }
    // A blocked view: the first record could not fit even without location, title and prose.
    if (blocked) {
        QJsonObject first = view;
        dropText(first, canonical);
        if (hasRegions)
            setRegions(first, canonical, 0);
        for (const char *key : {"url", "title", "title_truncated"})
            first.remove(QLatin1String(key));
        if (!url.isEmpty())
            first.insert(QStringLiteral("url_omitted"), true);
        if (!title.isEmpty())
            first.insert(QStringLiteral("title_omitted"), true);
        setContinuation(first, canonicalElements, 1, cursor);
        EXPECT(compactSize(envelope(first)) > budget, "blocked although the first control fitted");
    }
    return QString();
}

QString verify(const BrowserObservation &observation, int budget, const QByteArray &bytes)
{
    return verify(observation, observation.toJson(), budget, bytes);
}

// ---- generated observations -------------------------------------------------------------

class Generator
{
public:
    explicit Generator(quint32 seed) : m_random(seed) {}

    int below(int bound) { return bound <= 0 ? 0 : int(m_random.bounded(quint32(bound))); }
    bool chance(int percent) { return below(100) < percent; }

    QString token(int length)
    {
        static const char alphabet[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        QString out;
        for (int i = 0; i < length; ++i)
            out.append(QLatin1Char(alphabet[below(64)]));
        return out;
    }

    // One code point from a pool that exercises every width and every escape.
    QString codePoint()
    {
        static const char32_t pool[] = {
            U'a',   U'b',   U'Z',   U'7',   U' ',    U'.',    U'"',     U'\\',  U'/',  U'\n',
            U'\t',  U'\r',  U'\b',  U'\f',  0x01,    0x1f,    0x7f,     0xe9,   0x416, 0x2026,
            0x2028, 0x4e2d, 0x20ac, 0xfeff, 0x1f600, 0x1f9d1, 0x10ffff, 0x1d11e};
        const int pick = below(100);
        char32_t value;
        if (pick < 55)
            value = U'a' + char32_t(below(26));
        else if (pick < 60)
            value = U' ';
        else
            value = pool[below(int(std::size(pool)))];
        return QString::fromUcs4(&value, 1);
    }

    // Random text of at most `maxUnits` UTF-16 units and `maxBytes` UTF-8 bytes.
    QString text(int maxUnits, int maxBytes)
    {
        QString out;
        qint64 bytes = 0;
        const int targetUnits = below(maxUnits + 1);
        while (out.size() < targetUnits) {
            const QString point = codePoint();
            const qint64 size = point.toUtf8().size();
            if (out.size() + point.size() > maxUnits || bytes + size > maxBytes)
                break;
            out.append(point);
            bytes += size;
        }
        return out;
    }

    BrowserObservation observation()
    {
        BrowserObservation o;
        QString path = token(below(chance(10) ? 3000 : 40));
        o.url = QUrl(QStringLiteral("https://shop.acme-store.com/") + path, QUrl::StrictMode);
        if (chance(85))
            o.title = text(chance(30) ? ObservationBounds::kMaxTitleUnits : 60,
                           ObservationBounds::kMaxTitleUnits * 3);
        o.revision = token(chance(90) ? 24 : 22 + below(107));
        if (chance(50))
            o.readiness = chance(50) ? Readiness::DomQuiet : Readiness::BoundExpired;
        const int textKind = below(10);
        if (textKind >= 3)
            o.text = textKind < 8
                         ? text(4096, ObservationBounds::kMaxTextBytes)
                         : text(ObservationBounds::kMaxTextBytes, ObservationBounds::kMaxTextBytes);
        o.textCoverage.scannedNodes = below(ObservationBounds::kMaxTextNodes + 1);
        o.textCoverage.scannedTextUnits = below(ObservationBounds::kMaxTextUnits + 1);
        o.textCoverage.nodeLimitReached = chance(15);
        o.textCoverage.textLimitReached = chance(15);
        if (chance(20)) // captured text and known omissions stay within 256 KiB together
            o.textCoverage.omittedTextBytes =
                below(int(ObservationBounds::kMaxTextBytes - o.text.toUtf8().size()) + 1);
        if (chance(10))
            o.textCoverage.scope = QStringLiteral("main_document");

        const int sizeKind = below(10);
        const int count = sizeKind < 2   ? 0
                          : sizeKind < 7 ? below(20)
                                         : below(ObservationBounds::kMaxElements + 1);
        static const char *roles[] = {"button",           "link", "checkbox", "textbox", "combobox",
                                      "menuitemcheckbox", "tab",  "radio"};
        const QString refPrefix = token(8);
        for (int i = 0; i < count; ++i) {
            ElementRecord e;
            e.ref = chance(5) ? token(1 + below(ObservationBounds::kMaxRefUnits)) +
                                    QStringLiteral(".%1").arg(i)
                              : refPrefix + QStringLiteral(".%1").arg(i);
            e.ref = e.ref.right(ObservationBounds::kMaxRefUnits);
            e.role = QLatin1String(roles[below(int(std::size(roles)))]);
            const int nameKind = below(10);
            e.name = text(nameKind < 6   ? 30
                          : nameKind < 9 ? 300
                                         : ObservationBounds::kMaxNameUnits,
                          1 << 20);
            if (chance(3)) // escapes only: up to six wire bytes per name byte
                e.name = QString(100 + below(157), QChar(0x01 + below(31)));
            e.state.disabled = chance(20);
            e.state.checked = CheckedState(below(4));
            if (chance(30))
                e.state.selected = chance(50);
            if (chance(30))
                e.state.expanded = chance(50);
            e.state.required = chance(10);
            o.elements.append(e);
        }
        // A window ends before the last candidate position (65,536).
        o.coverage.candidateOffset = chance(50) ? 0
                                                : below(ObservationBounds::kMaxCandidatePositions -
                                                        ObservationBounds::kMaxCandidates);
        o.coverage.scannedCandidates = below(ObservationBounds::kMaxCandidates + 1);
        if (chance(50))
            o.coverage.nextCursor = token(32 + below(97));
        o.coverage.scanLimitReached = chance(20);

        if (chance(40)) {
            static const char *kinds[] = {"dialog",  "alert", "status", "form",
                                          "heading", "main",  "section"};
            const int regions = chance(20) ? ObservationBounds::kMaxRegions : below(8);
            for (int i = 0; i < regions; ++i) {
                RegionRecord region;
                region.ref = refPrefix + QStringLiteral(".g%1").arg(i);
                region.kind = QLatin1String(kinds[below(int(std::size(kinds)))]);
                region.name = text(chance(80) ? 40 : ObservationBounds::kMaxNameUnits, 1 << 20);
                if (region.kind == QLatin1String("heading"))
                    region.level = 1 + below(9);
                else
                    region.summary =
                        text(chance(50) ? 60 : ObservationBounds::kMaxSummaryUnits, 1 << 20);
                region.summaryTruncated = chance(20);
                o.regions.append(region);
            }
            o.regionCoverage = RegionCoverage{1, QStringLiteral("main_document"),
                                              below(ObservationBounds::kMaxRegionScanNodes + 1),
                                              chance(20), chance(30) ? below(200) : 0};
            if (!o.regions.isEmpty() && chance(40)) {
                const int offset = below(5000);
                o.focus = FocusState{o.regions.at(below(int(o.regions.size()))).ref, offset,
                                     offset + int(o.text.toUtf8().size())};
                if (o.focus->textBytes > ObservationBounds::kMaxTextBytes)
                    o.focus.reset();
                else { // next_text repeats the revision: providers mint 24-character ones
                    o.revision = token(24);
                    // and next_observe its cursor, which providers mint at 43 characters
                    if (o.coverage.nextCursor)
                        o.coverage.nextCursor = token(43);
                }
            }
        }
        if (chance(15))
            o.waitFor = WaitOutcome{WaitOutcome::Status(below(3)), QStringLiteral("first_window"),
                                    1 + below(21), below(5000)};
        else if (!o.focus && chance(15)) { // what an act returns (a first window)
            static const char *kinds[] = {"click", "type", "select", "check", "press", "scroll"};
            ActionOutcome action;
            action.kind = QLatin1String(kinds[below(int(std::size(kinds)))]);
            action.dispatched = action.kind != QLatin1String("check") || chance(50);
            if (action.kind == QLatin1String("scroll"))
                action.scrolledPx = below(4001) - 2000;
            o.action = action;
            if (action.kind == QLatin1String("type") && chance(50)) {
                const QString draft = text(900, 3600);
                if (o.text.toUtf8().size() + draft.toUtf8().size() <=
                    ObservationBounds::kMaxTextBytes)
                    o.confirmedDraft = draft;
            }
        }
        return o;
    }

private:
    QRandomGenerator m_random;
};

BrowserObservation sample()
{
    BrowserObservation o;
    o.url = QUrl(QStringLiteral("https://shop.acme-store.com/cart"), QUrl::StrictMode);
    o.title = QStringLiteral("Cart");
    o.revision = QStringLiteral("AAAAAAAAAAAAAAAAAAAAAAAA");
    o.readiness = Readiness::DomQuiet;
    o.text = QStringLiteral("Hello");
    o.textCoverage.scannedNodes = 3;
    o.textCoverage.scannedTextUnits = 5;
    ElementRecord go;
    go.ref = QStringLiteral("r.0");
    go.role = QStringLiteral("button");
    go.name = QStringLiteral("Go");
    o.elements = {go};
    o.coverage.scannedCandidates = 1;
    return o;
}

// `count` buttons "r.0", "r.1", ... with names of `nameLength` ASCII letters.
BrowserObservation withButtons(int count, int nameLength)
{
    BrowserObservation o = sample();
    o.elements.clear();
    for (int i = 0; i < count; ++i) {
        ElementRecord e;
        e.ref = QStringLiteral("r.%1").arg(i);
        e.role = QStringLiteral("button");
        e.name = QString(nameLength, QLatin1Char('a' + i % 26));
        o.elements.append(e);
    }
    o.coverage.scannedCandidates = count;
    return o;
}

QJsonObject viewOf(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object().value(QStringLiteral("observation")).toObject();
}

} // namespace

class TestModelProjection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exactBytesOfASmallObservation();
    void isDeterministic();
    void defaultBudgetIsConfiguration();
    void titleIsCutToItsDisplayLimit_data();
    void titleIsCutToItsDisplayLimit();
    void namesAreCutToTheirDisplayLimit();
    void stateIsCompact();
    void actOutcomeIsShownWhole();
    void escapingCountsAgainstTheBudget();
    void keepsAPrefixAndContinuesAfterTheLastExposedControl_data();
    void keepsAPrefixAndContinuesAfterTheLastExposedControl();
    void firstControlIsReservedBeforeLocationAndTitle();
    void oversizedFirstControlBlocksExpansion();
    void cursorOnlyAfterTheWholeWindow();
    void emptyWindowContinuesWithTheCursor();
    void coverageIsCompactAndLossless();
    void proseIsCutAtACodePoint();
    void wholeObservationOmission();
    void budgetBelowTheMinimum();
    void generatedObservations();
};

void TestModelProjection::exactBytesOfASmallObservation()
{
    const QByteArray expected =
        R"({"trust":"EXTERNAL_UNTRUSTED","source":"website","observation":{)"
        R"("revision":"AAAAAAAAAAAAAAAAAAAAAAAA","readiness":"dom_quiet",)"
        R"("url":"https://shop.acme-store.com/cart","title":"Cart",)"
        R"("elements":[{"ref":"r.0","role":"button","name":"Go"}],"text":"Hello",)"
        R"("coverage":{"candidate_offset":0,"scanned_candidates":1},)"
        R"("text_coverage":{"version":1,"scope":"main_document_open_shadow_roots",)"
        R"("scanned_nodes":3,"scanned_text_units":5}}})";
    QCOMPARE(ModelProjection::project(sample(), 1024), expected);
    QVERIFY2(verify(sample(), 1024, expected).isEmpty(), "oracle rejects the sample");
    const Result<QByteArray> strict = ModelProjection::projectOrFail(sample(), 1024);
    QVERIFY(strict.ok());
    QCOMPARE(strict.value(), expected);
}

void TestModelProjection::isDeterministic()
{
    Generator generator(7);
    for (int i = 0; i < 50; ++i) {
        const BrowserObservation observation = generator.observation();
        for (int budget : {1024, 4096}) {
            const QByteArray first = ModelProjection::project(observation, budget);
            QCOMPARE(ModelProjection::project(BrowserObservation(observation), budget), first);
        }
    }
}

void TestModelProjection::defaultBudgetIsConfiguration()
{
    // A caller that passes no budget gets the documented default, 16384 bytes (`--budget`'s
    // default): the same bytes as asking for 16 KiB explicitly, not those of a neighbouring
    // power of two.
    const BrowserObservation big = withButtons(256, 200);
    const QByteArray bytes = ModelProjection::project(big);
    QCOMPARE(bytes, ModelProjection::project(big, 16 * 1024));
    QCOMPARE(ModelProjection::build(big).bytes, bytes);
    QCOMPARE(ModelProjection::projectOrFail(big).value(), bytes);
    QVERIFY(bytes != ModelProjection::project(big, 8 * 1024));
    QVERIFY(bytes != ModelProjection::project(big, 32 * 1024));
    QVERIFY(bytes.size() <= 16 * 1024);
    QVERIFY(bytes.size() > 15 * 1024); // the budget is used, not a smaller hidden one
    QVERIFY(ModelProjection::project(big, 64 * 1024).size() > 16 * 1024);
}

void TestModelProjection::titleIsCutToItsDisplayLimit_data()
{
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("shown");
    const QString a128(128, QLatin1Char('a'));
    QTest::newRow("exactly 128 bytes") << a128 << a128;
    QTest::newRow("129 bytes") << a128 + QLatin1Char('b')
                               << QString(125, QLatin1Char('a')) + kEllipsis;
    // é is two bytes: 62 of them (124 bytes) plus the ellipsis (3) is 127.
    QTest::newRow("two-byte") << QString(100, QChar(0xe9)) << QString(62, QChar(0xe9)) + kEllipsis;
    // 😀 is a surrogate pair and four bytes: 31 of them (124) plus the ellipsis.
    const QString smile = QString::fromUtf8("\xF0\x9F\x98\x80");
    QTest::newRow("surrogate pairs") << smile.repeated(40) << smile.repeated(31) + kEllipsis;
    QTest::newRow("pair at the edge") << QString(123, QLatin1Char('a')) + smile.repeated(2)
                                      << QString(123, QLatin1Char('a')) + kEllipsis;
}

void TestModelProjection::titleIsCutToItsDisplayLimit()
{
    QFETCH(QString, title);
    QFETCH(QString, shown);
    BrowserObservation observation = sample();
    observation.title = title;
    const QByteArray bytes = ModelProjection::project(observation, 4096);
    QVERIFY2(verify(observation, 4096, bytes).isEmpty(),
             qPrintable(verify(observation, 4096, bytes)));
    const QJsonObject view = viewOf(bytes);
    QCOMPARE(view.value(QStringLiteral("title")).toString(), shown);
    QVERIFY(shown.toUtf8().size() <= 128);
    QCOMPARE(view.contains(QStringLiteral("title_truncated")), shown != title);
    if (shown != title)
        QCOMPARE(view.value(QStringLiteral("title_truncated")), QJsonValue(true));
    bool cut = false;
    QCOMPARE(ModelProjection::truncateForDisplay(title, 128, &cut), shown);
    QCOMPARE(cut, shown != title);
}

void TestModelProjection::namesAreCutToTheirDisplayLimit()
{
    BrowserObservation observation = withButtons(3, 0);
    const QString smile = QString::fromUtf8("\xF0\x9F\x98\x80");
    observation.elements[0].name = QString(256, QLatin1Char('n'));         // fits exactly
    observation.elements[1].name = QString(254, QLatin1Char('n')) + smile; // 258 bytes
    observation.elements[2].name = QString(1024, QChar(0x4e2d));           // 3 KiB
    const QByteArray bytes = ModelProjection::project(observation, 4096);
    QVERIFY2(verify(observation, 4096, bytes).isEmpty(),
             qPrintable(verify(observation, 4096, bytes)));
    const QJsonArray elements = viewOf(bytes).value(QStringLiteral("elements")).toArray();
    QCOMPARE(elements.size(), 3);
    QCOMPARE(elements.at(0).toObject().value(QStringLiteral("name")).toString(),
             observation.elements[0].name);
    QVERIFY(!elements.at(0).toObject().contains(QStringLiteral("name_truncated")));
    QCOMPARE(elements.at(1).toObject().value(QStringLiteral("name")).toString(),
             QString(253, QLatin1Char('n')) + kEllipsis);
    QCOMPARE(elements.at(1).toObject().value(QStringLiteral("name_truncated")), QJsonValue(true));
    QCOMPARE(elements.at(2).toObject().value(QStringLiteral("name")).toString(),
             QString(84, QChar(0x4e2d)) + kEllipsis); // 252 bytes + 3
    QCOMPARE(elements.at(2).toObject().value(QStringLiteral("name_truncated")), QJsonValue(true));
    // The rest of each record is the canonical one.
    QCOMPARE(elements.at(2).toObject().value(QStringLiteral("ref")).toString(),
             QStringLiteral("r.2"));
    QCOMPARE(
        elements.at(2).toObject(),
        expectedRecord(
            observation.toJson().value(QStringLiteral("elements")).toArray().at(2).toObject()));
}

void TestModelProjection::stateIsCompact()
{
    BrowserObservation observation = sample();
    ElementRecord box = observation.elements.first();
    box.ref = QStringLiteral("r.1");
    box.role = QStringLiteral("checkbox");
    box.state.disabled = true;
    box.state.checked = CheckedState::Mixed;
    box.state.expanded = false;
    box.state.required = true;
    observation.elements.append(box);
    const QByteArray bytes = ModelProjection::project(observation, 4096);
    QVERIFY(bytes.contains(R"({"ref":"r.0","role":"button","name":"Go"})"));
    QVERIFY(bytes.contains(R"({"ref":"r.1","role":"checkbox","name":"Go","state":{"disabled":true,)"
                           R"("checked":"mixed","expanded":false,"required":true}})"));
    QVERIFY2(verify(observation, 4096, bytes).isEmpty(), "oracle rejects the compact state");
}

// A model that scrolled learns how far the page moved, at any budget; a check that sent
// nothing says so.
void TestModelProjection::actOutcomeIsShownWhole()
{
    BrowserObservation scrolled = withButtons(400, 200);
    scrolled.action = ActionOutcome{QStringLiteral("scroll"), true, -300};
    for (const int budget : {1024, 4096, 16384}) {
        const QByteArray bytes = ModelProjection::project(scrolled, budget);
        QVERIFY(
            bytes.contains(R"("action":{"kind":"scroll","dispatched":true,"scrolled_px":-300})"));
        QVERIFY(verify(scrolled, budget, bytes).isEmpty());
    }
    BrowserObservation checked = sample();
    checked.action = ActionOutcome{QStringLiteral("check"), false, std::nullopt};
    QVERIFY(ModelProjection::project(checked, 1024)
                .contains(R"("action":{"kind":"check","dispatched":false})"));
}

void TestModelProjection::escapingCountsAgainstTheBudget()
{
    // Names made of characters that need escaping: \u0001 takes six bytes on the wire.
    BrowserObservation observation = withButtons(40, 0);
    for (int i = 0; i < observation.elements.size(); ++i)
        observation.elements[i].name =
            QStringLiteral("\"q\\\n") + QString(30, QChar(0x01)) + QStringLiteral("\t/");
    observation.text = QString(4000, QChar(0x02));
    for (int budget : {1024, 2048, 4096}) {
        const QByteArray bytes = ModelProjection::project(observation, budget);
        QVERIFY2(verify(observation, budget, bytes).isEmpty(),
                 qPrintable(verify(observation, budget, bytes)));
        const QJsonObject view = viewOf(bytes);
        const QJsonArray elements = view.value(QStringLiteral("elements")).toArray();
        QVERIFY(!elements.isEmpty());
        QCOMPARE(elements.at(0).toObject().value(QStringLiteral("name")).toString(),
                 observation.elements[0].name);
        QVERIFY(bytes.size() > budget - 64); // escaped sizes are counted exactly, not guessed
    }
}

void TestModelProjection::keepsAPrefixAndContinuesAfterTheLastExposedControl_data()
{
    QTest::addColumn<int>("budget");
    QTest::newRow("1 KiB") << 1024;
    QTest::newRow("4 KiB") << 4096;
}

void TestModelProjection::keepsAPrefixAndContinuesAfterTheLastExposedControl()
{
    QFETCH(int, budget);
    BrowserObservation observation = withButtons(100, 40);
    observation.coverage.nextCursor = QString(40, QLatin1Char('c'));
    const QByteArray bytes = ModelProjection::project(observation, budget);
    QVERIFY(bytes.size() <= budget);
    QVERIFY2(verify(observation, budget, bytes).isEmpty(),
             qPrintable(verify(observation, budget, bytes)));
    const QJsonObject view = viewOf(bytes);
    const QJsonArray elements = view.value(QStringLiteral("elements")).toArray();
    QVERIFY(elements.size() >= (budget == 1024 ? 3 : 20));
    QVERIFY(elements.size() < 100);
    QCOMPARE(view.value(QStringLiteral("omitted_elements")).toInt(), 100 - int(elements.size()));
    const QString last = QStringLiteral("r.%1").arg(elements.size() - 1);
    QCOMPARE(view.value(QStringLiteral("next_observe")).toObject(),
             QJsonObject({{QStringLiteral("after"), last}}));
    QCOMPARE(view.value(QStringLiteral("revision")).toString(), observation.revision);
    // Controls come before prose: long prose takes no control's place, it only fills the
    // room no further control fits in.
    BrowserObservation wordy = observation;
    wordy.text = QString(20000, QLatin1Char('x'));
    const QByteArray wordyBytes = ModelProjection::project(wordy, budget);
    QVERIFY2(verify(wordy, budget, wordyBytes).isEmpty(),
             qPrintable(verify(wordy, budget, wordyBytes)));
    const QJsonObject wordyView = viewOf(wordyBytes);
    QCOMPARE(wordyView.value(QStringLiteral("elements")).toArray(), elements);
    const QString shown = wordyView.value(QStringLiteral("text")).toString();
    QVERIFY(shown.size() < 300); // less than one more 40-letter button record needs
    QCOMPARE(wordyView.value(QStringLiteral("omitted_text_bytes")).toInt(), 20000 - shown.size());
}

void TestModelProjection::firstControlIsReservedBeforeLocationAndTitle()
{
    // The location alone would fit, but not with the first control: the control is reserved
    // first and the location is said to be left out; the title still fits after it.
    BrowserObservation observation = withButtons(2, 250);
    observation.url =
        QUrl(QStringLiteral("https://shop.acme-store.com/") + QString(450, QLatin1Char('p')),
             QUrl::StrictMode);
    observation.title = QString(128, QLatin1Char('t'));
    const QByteArray bytes = ModelProjection::project(observation, 1024);
    QVERIFY2(verify(observation, 1024, bytes).isEmpty(),
             qPrintable(verify(observation, 1024, bytes)));
    QJsonObject view = viewOf(bytes);
    QCOMPARE(view.value(QStringLiteral("elements")).toArray().size(), 1);
    QCOMPARE(view.value(QStringLiteral("url_omitted")), QJsonValue(true));
    BrowserObservation withoutControls = observation;
    withoutControls.elements.clear();
    QVERIFY(
        viewOf(ModelProjection::project(withoutControls, 1024)).contains(QStringLiteral("url")));
    QVERIFY(!view.contains(QStringLiteral("url")));
    QCOMPARE(view.value(QStringLiteral("title")).toString(), observation.title);
    QCOMPARE(view.value(QStringLiteral("next_observe")).toObject().value(QStringLiteral("after")),
             QJsonValue(QStringLiteral("r.0")));

    // Location and title come before further controls.
    observation.url = QUrl(QStringLiteral("https://shop.acme-store.com/short"), QUrl::StrictMode);
    view = viewOf(ModelProjection::project(observation, 1024));
    QVERIFY(view.contains(QStringLiteral("url")));
    QVERIFY(view.contains(QStringLiteral("title")));
    QCOMPARE(view.value(QStringLiteral("elements")).toArray().size(), 1);

    // With room for everything nothing is said to be left out.
    view = viewOf(ModelProjection::project(observation, 4096));
    for (const char *key : {"url_omitted", "title_omitted", "omitted_elements", "next_observe",
                            "omitted_text_bytes", "expansion_blocked", "title_truncated"})
        QVERIFY2(!view.contains(QLatin1String(key)), key);
    QCOMPARE(view.value(QStringLiteral("elements")).toArray().size(), 2);
}

void TestModelProjection::oversizedFirstControlBlocksExpansion()
{
    // 250 control characters escape to 1,500 bytes: the first record cannot fit in 1 KiB
    // even alone. Later small controls are not shown, so nothing hides it from continuation.
    BrowserObservation observation = withButtons(5, 4);
    observation.elements[0].name = QString(250, QChar(0x01));
    const ModelProjection::Projection projection = ModelProjection::build(observation, 1024);
    QVERIFY2(verify(observation, 1024, projection.bytes).isEmpty(),
             qPrintable(verify(observation, 1024, projection.bytes)));
    const QJsonObject view = viewOf(projection.bytes);
    QCOMPARE(view.value(QStringLiteral("expansion_blocked")).toString(),
             QStringLiteral("inline_control_too_large"));
    QVERIFY(view.value(QStringLiteral("elements")).toArray().isEmpty());
    QCOMPARE(view.value(QStringLiteral("omitted_elements")).toInt(), 5);
    QVERIFY(!view.contains(QStringLiteral("next_observe")));
    QCOMPARE(view.value(QStringLiteral("revision")).toString(), observation.revision);
    QVERIFY(projection.expansionBlocked);
    QCOMPARE(projection.exposedElements, 0);
    // Optional context still uses the room that is left.
    QVERIFY(view.contains(QStringLiteral("url")));
    QCOMPARE(view.value(QStringLiteral("text")).toString(), observation.text);
    // The same record fits at 4 KiB.
    const QJsonObject wider = viewOf(ModelProjection::project(observation, 4096));
    QVERIFY(!wider.contains(QStringLiteral("expansion_blocked")));
    QCOMPARE(wider.value(QStringLiteral("elements")).toArray().size(), 5);
}

void TestModelProjection::cursorOnlyAfterTheWholeWindow()
{
    BrowserObservation observation = withButtons(3, 5);
    observation.coverage.nextCursor = QString(64, QLatin1Char('k'));
    QJsonObject view = viewOf(ModelProjection::project(observation, 4096));
    QCOMPARE(view.value(QStringLiteral("next_observe")).toObject(),
             QJsonObject({{QStringLiteral("cursor"), *observation.coverage.nextCursor}}));
    QCOMPARE(view.value(QStringLiteral("coverage")).toObject().value(QStringLiteral("next_cursor")),
             QJsonValue(*observation.coverage.nextCursor));

    // Nothing remains: no next_observe.
    observation.coverage.nextCursor.reset();
    view = viewOf(ModelProjection::project(observation, 4096));
    QVERIFY(!view.contains(QStringLiteral("next_observe")));
    QVERIFY(
        !view.value(QStringLiteral("coverage")).toObject().contains(QStringLiteral("next_cursor")));

    // Controls left out by the projection: continue after the last one shown, never the cursor.
    observation = withButtons(60, 40);
    observation.coverage.nextCursor = QString(64, QLatin1Char('k'));
    const QByteArray bytes = ModelProjection::project(observation, 2048);
    QVERIFY2(verify(observation, 2048, bytes).isEmpty(),
             qPrintable(verify(observation, 2048, bytes)));
    view = viewOf(bytes);
    QVERIFY(
        view.value(QStringLiteral("next_observe")).toObject().contains(QStringLiteral("after")));
}

void TestModelProjection::emptyWindowContinuesWithTheCursor()
{
    BrowserObservation observation = withButtons(0, 0);
    observation.coverage.scannedCandidates = 4096;
    observation.coverage.nextCursor = QString(32, QLatin1Char('e'));
    const QByteArray bytes = ModelProjection::project(observation, 1024);
    QVERIFY2(verify(observation, 1024, bytes).isEmpty(),
             qPrintable(verify(observation, 1024, bytes)));
    const QJsonObject view = viewOf(bytes);
    QVERIFY(view.value(QStringLiteral("elements")).toArray().isEmpty());
    QVERIFY(!view.contains(QStringLiteral("expansion_blocked")));
    QVERIFY(!view.contains(QStringLiteral("omitted_elements")));
    QCOMPARE(view.value(QStringLiteral("next_observe")).toObject(),
             QJsonObject({{QStringLiteral("cursor"), *observation.coverage.nextCursor}}));
}

void TestModelProjection::coverageIsCompactAndLossless()
{
    BrowserObservation observation = sample();
    QJsonObject view = viewOf(ModelProjection::project(observation, 1024));
    QCOMPARE(
        view.value(QStringLiteral("text_coverage")).toObject(),
        QJsonObject({{QStringLiteral("version"), 1},
                     {QStringLiteral("scope"), QStringLiteral("main_document_open_shadow_roots")},
                     {QStringLiteral("scanned_nodes"), 3},
                     {QStringLiteral("scanned_text_units"), 5}}));
    QCOMPARE(view.value(QStringLiteral("coverage")).toObject(),
             QJsonObject({{QStringLiteral("candidate_offset"), 0},
                          {QStringLiteral("scanned_candidates"), 1}}));

    observation.textCoverage.nodeLimitReached = true;
    observation.textCoverage.textLimitReached = true;
    observation.textCoverage.omittedTextBytes = 12345;
    observation.coverage.candidateOffset = 4096;
    observation.coverage.scanLimitReached = true;
    observation.coverage.nextCursor = QString(40, QLatin1Char('z'));
    view = viewOf(ModelProjection::project(observation, 1024));
    QCOMPARE(expandTextCoverage(view.value(QStringLiteral("text_coverage")).toObject()),
             observation.toJson().value(QStringLiteral("text_coverage")).toObject());
    QCOMPARE(view.value(QStringLiteral("text_coverage")).toObject().size(), 7);
    QCOMPARE(expandCoverage(view.value(QStringLiteral("coverage")).toObject()),
             observation.toJson().value(QStringLiteral("coverage")).toObject());
    QCOMPARE(view.value(QStringLiteral("coverage")).toObject().size(), 4);
}

void TestModelProjection::proseIsCutAtACodePoint()
{
    BrowserObservation observation = sample();
    const QString smile = QString::fromUtf8("\xF0\x9F\x98\x80");
    observation.text =
        QString(QStringLiteral("x") + smile + QChar(0xe9) + QChar(0x4e2d)).repeated(2000);
    for (int budget = 1024; budget < 1024 + 16; ++budget) {
        const QByteArray bytes = ModelProjection::project(observation, budget);
        QVERIFY2(verify(observation, budget, bytes).isEmpty(),
                 qPrintable(verify(observation, budget, bytes)));
        const QJsonObject view = viewOf(bytes);
        const QString text = view.value(QStringLiteral("text")).toString();
        QVERIFY(!text.isEmpty());
        QVERIFY(observation.text.startsWith(text));
        QVERIFY(!text.back().isHighSurrogate());
        QCOMPARE(view.value(QStringLiteral("omitted_text_bytes")).toInt(),
                 observation.text.toUtf8().size() - text.toUtf8().size());
        // The cut moves with the budget and fills it to within one code point.
        QVERIFY(bytes.size() > budget - 4);
    }
}

void TestModelProjection::wholeObservationOmission()
{
    // A revision too long to fit (never produced by a valid provider) is never shortened.
    BrowserObservation observation = sample();
    observation.revision = QString(2000, QLatin1Char('R'));
    const QByteArray expected =
        R"({"trust":"EXTERNAL_UNTRUSTED","source":"website",)"
        R"("observation":{"omitted":"whole_observation","reason":"budget"}})";
    const ModelProjection::Projection projection = ModelProjection::build(observation, 1024);
    QCOMPARE(projection.bytes, expected);
    QVERIFY(projection.wholeObservationOmitted);
    QCOMPARE(ModelProjection::project(observation, 1024), expected);
    const Result<QByteArray> strict = ModelProjection::projectOrFail(observation, 1024);
    QVERIFY(!strict.ok());
    QVERIFY(strict.error().is(ReasonCode::OutputInvalid));
    QVERIFY(expected.size() <= ModelProjection::kMinBudgetBytes);

    // Coverage is essential too: a scope that cannot fit omits the whole observation.
    observation = sample();
    observation.textCoverage.scope = QString(1000, QChar(0x01));
    QCOMPARE(ModelProjection::project(observation, 4096), expected);
    QVERIFY(ModelProjection::projectOrFail(observation, 8192).ok());
}

void TestModelProjection::budgetBelowTheMinimum()
{
    const BrowserObservation observation = withButtons(10, 10);
    const QByteArray bytes = ModelProjection::project(observation, 10);
    QVERIFY(bytes.size() <= ModelProjection::kMinBudgetBytes);
    QVERIFY2(verify(observation, ModelProjection::kMinBudgetBytes, bytes).isEmpty(),
             qPrintable(verify(observation, ModelProjection::kMinBudgetBytes, bytes)));
    QCOMPARE(bytes, ModelProjection::project(observation, ModelProjection::kMinBudgetBytes));
    const Result<QByteArray> strict = ModelProjection::projectOrFail(observation, 10);
    QVERIFY(!strict.ok());
    QVERIFY(strict.error().is(ReasonCode::OutputInvalid));
}

void TestModelProjection::generatedObservations()
{
    // 200 observations (1,000 projections) by default; the full 2,000 (10,000 projections)
    // under the `full` label (VEETBOT_TEST_FULL=1). The coverage floors below scale with it.
    const int kObservations = qEnvironmentVariableIsSet("VEETBOT_TEST_FULL") ? 2000 : 200;
    const auto atLeast = [kObservations](int fullCount) {
        return fullCount * kObservations / 2000;
    };
    Generator generator(0x5eed2024);
    int projections = 0;
    int truncatedNames = 0;
    int blocked = 0;
    int afterContinuations = 0;
    int cursorContinuations = 0;
    int cutTexts = 0;
    int cutRegions = 0;
    int nextTexts = 0;
    int regionLabels = 0;
    int shownDrafts = 0;
    int omittedDrafts = 0;
    int complete = 0;      // every control and all text shown, no continuation
    int budgetMatters = 0; // cut at 1 KiB, more controls shown at 16 KiB
    for (int i = 0; i < kObservations; ++i) {
        const BrowserObservation observation = generator.observation();
        // The generator only produces observations a provider could hand over.
        const QJsonObject canonical = observation.toJson();
        const Result<BrowserObservation> valid =
            BrowserObservation::fromJson(canonical, TestOverrides());
        QVERIFY2(valid.ok(), qPrintable(QStringLiteral("generated observation %1 invalid").arg(i)));
        const int randomBudget = 1024 + generator.below(64 * 1024);
        QByteArray at1024;
        int exposedAt1024 = 0;
        for (int budget : {1024, 2048, 4096, 16384, randomBudget}) {
            const ModelProjection::Projection projection =
                ModelProjection::build(observation, budget);
            if (at1024.isNull()) {
                at1024 = projection.bytes;
                exposedAt1024 = projection.exposedElements;
            } else if (budget == 16384 && exposedAt1024 < observation.elements.size() &&
                       projection.exposedElements > exposedAt1024) {
                ++budgetMatters;
            }
            const QString failure = verify(observation, canonical, budget, projection.bytes);
            QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("observation %1 at %2 bytes: %3")
                                                       .arg(i)
                                                       .arg(budget)
                                                       .arg(failure)));
            // Valid observations always fit at 1 KiB and above.
            QVERIFY2(!projection.wholeObservationOmitted,
                     qPrintable(QStringLiteral("observation %1 omitted at %2").arg(i).arg(budget)));
            ++projections;
            if (projection.bytes.contains("\"name_truncated\":true"))
                ++truncatedNames;
            if (projection.expansionBlocked)
                ++blocked;
            if (projection.bytes.contains("\"next_observe\":{\"after\""))
                ++afterContinuations;
            if (projection.bytes.contains("\"next_observe\":{\"cursor\""))
                ++cursorContinuations;
            if (projection.omittedTextBytes > 0 && projection.bytes.contains("\"text\":"))
                ++cutTexts;
            if (projection.exposedRegions > 0 &&
                projection.exposedRegions < observation.regions.size())
                ++cutRegions;
            shownDrafts += projection.bytes.contains("\"confirmed_draft\":") ? 1 : 0;
            omittedDrafts += projection.bytes.contains("\"confirmed_draft_omitted\":") ? 1 : 0;
            if (projection.bytes.contains("\"next_text\":"))
                ++nextTexts;
            if (projection.bytes.contains("\"summary_omitted\":true"))
                ++regionLabels;
            if (projection.exposedElements == observation.elements.size() &&
                projection.omittedTextBytes == 0 && !projection.bytes.contains("\"next_observe\":"))
                ++complete;
        }
        // The bytes alone are the same bytes the accounting build produced.
        if (i % 100 == 0)
            QCOMPARE(ModelProjection::project(observation, 1024), at1024);
    }
    qInfo("%d projections: %d with cut names, %d blocked, %d after, %d cursor, %d cut texts",
          projections, truncatedNames, blocked, afterContinuations, cursorContinuations, cutTexts);
    qInfo("%d complete, %d shown further at 16 KiB than at 1 KiB", complete, budgetMatters);
    // Both ends are reached: projections that show everything and end there, and
    // observations the budget alone decides how far to show.
    QVERIFY(complete > atLeast(1000));
    QVERIFY(budgetMatters > atLeast(500));
    // The generator reaches every rule, so the suite cannot pass vacuously.
    QVERIFY(truncatedNames > atLeast(100));
    QVERIFY(blocked > atLeast(10));
    QVERIFY(afterContinuations > atLeast(1000));
    QVERIFY(cursorContinuations > atLeast(100));
    QVERIFY(cutTexts > atLeast(500));
    qInfo("%d with regions cut, %d with next_text, %d with a region label", cutRegions, nextTexts,
          regionLabels);
    qInfo("%d with a confirmed draft shown, %d with it said to be there", shownDrafts,
          omittedDrafts);
    QVERIFY(shownDrafts > 0);
    QVERIFY(omittedDrafts > 0);
    QVERIFY(regionLabels > atLeast(50));
    QVERIFY(cutRegions > atLeast(100));
    QVERIFY(nextTexts > atLeast(100));
}

QTEST_GUILESS_MAIN(TestModelProjection)
#include "tst_modelprojection.moc"
