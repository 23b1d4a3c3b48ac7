#include "ModelProjection.h"

#include "ExtractionProjection.h"
#include "domain/web/PageAddress.h"
#include "json/JsonText.h"

#include <QList>

#include <algorithm>
#include <optional>

namespace veetbot {

namespace {

constexpr char16_t kEllipsis = 0x2026; // "…", three UTF-8 bytes
constexpr int kEllipsisBytes = 3;

const QByteArray kEnvelopeHead =
    QByteArrayLiteral(R"({"trust":"EXTERNAL_UNTRUSTED","source":"website","observation":)");
const QByteArray kEnvelopeTail = QByteArrayLiteral("}");
const QByteArray kWholeOmission =
    QByteArrayLiteral(R"({"omitted":"whole_observation","reason":"budget"})");

using JsonText::CodePoint;
using JsonText::codePointAt;

// UTF-8 bytes of the whole text, as codePointAt counts them (a lone surrogate as three).
qint64 utf8Size(const QString &text)
{
    const char16_t *units = reinterpret_cast<const char16_t *>(text.utf16());
    const qsizetype size = text.size();
    qint64 bytes = 0;
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = units[i];
        if (unit < 0x80) {
            bytes += 1;
        } else if (unit < 0x800) {
            bytes += 2;
        } else if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < size && units[i + 1] >= 0xDC00 &&
                   units[i + 1] <= 0xDFFF) {
            bytes += 4;
            ++i;
        } else {
            bytes += 3;
        }
    }
    return bytes;
}

// JSON string body of the first `units` of `text` (a lone surrogate, never in a validated
// observation, as a \uxxxx escape).
void appendEscaped(QByteArray &out, const QString &text, qsizetype units)
{
    (void)JsonText::appendEscaped(out, QStringView(text).first(units),
                                  JsonText::LoneSurrogates::Escape);
}

QByteArray quoted(const QString &text)
{
    QByteArray out;
    out.append('"');
    appendEscaped(out, text, text.size());
    out.append('"');
    return out;
}

QByteArray member(const char *key, const QByteArray &value)
{
    return '"' + QByteArray(key) + "\":" + value;
}

QByteArray number(qint64 value)
{
    return QByteArray::number(value);
}

QByteArray boolean(bool value)
{
    return value ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
}

// Appends `name: true` when set; a default false flag is left out.
void appendFlag(QList<QByteArray> &members, const char *name, bool set)
{
    if (set)
        members.append(member(name, boolean(true)));
}

QByteArray optionalBoolean(const std::optional<bool> &value)
{
    return value ? boolean(*value) : QByteArrayLiteral("null");
}

QByteArray checkedValue(CheckedState checked)
{
    switch (checked) {
    case CheckedState::None:
        return QByteArrayLiteral("null");
    case CheckedState::False:
        return QByteArrayLiteral("false");
    case CheckedState::True:
        return QByteArrayLiteral("true");
    case CheckedState::Mixed:
        return QByteArrayLiteral("\"mixed\"");
    }
    Q_UNREACHABLE();
    return QByteArray();
}

QByteArray object(const QList<QByteArray> &members)
{
    QByteArray out;
    out.append('{');
    for (qsizetype i = 0; i < members.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append(members.at(i));
    }
    out.append('}');
    return out;
}

// The element record as the canonical form has it, its state compact; only the name may be
// cut to the display limit, and then it says so.
QByteArray elementRecord(const ElementRecord &element)
{
    bool truncated = false;
    const QString name = ModelProjection::truncateForDisplay(
        element.name, ModelProjection::kNameLimitBytes, &truncated);
    const ElementState &state = element.state;
    QList<QByteArray> members{
        member("ref", quoted(element.ref)),
        member("role", quoted(element.role)),
        member("name", quoted(name)),
    };
    appendFlag(members, "name_truncated", truncated);
    // Compact state: only what differs from the typed defaults (false, null), so a plain
    // control costs its ref, role and name; an empty state is left out whole.
    QList<QByteArray> stateMembers;
    appendFlag(stateMembers, "disabled", state.disabled);
    if (state.checked != CheckedState::None)
        stateMembers.append(member("checked", checkedValue(state.checked)));
    if (state.selected)
        stateMembers.append(member("selected", optionalBoolean(state.selected)));
    if (state.expanded)
        stateMembers.append(member("expanded", optionalBoolean(state.expanded)));
    appendFlag(stateMembers, "required", state.required);
    if (!stateMembers.isEmpty())
        members.append(member("state", object(stateMembers)));
    return object(members);
}

// Compact coverage: scope and version always; default false flags, a null cursor and a zero
// omission count left out. Everything non-default survives.
QByteArray candidateCoverage(const CandidateCoverage &coverage)
{
    QList<QByteArray> members{
        member("candidate_offset", number(coverage.candidateOffset)),
        member("scanned_candidates", number(coverage.scannedCandidates)),
    };
    if (coverage.nextCursor)
        members.append(member("next_cursor", quoted(*coverage.nextCursor)));
    appendFlag(members, "scan_limit_reached", coverage.scanLimitReached);
    return object(members);
}

QByteArray textCoverage(const TextCoverage &coverage)
{
    QList<QByteArray> members{
        member("version", number(coverage.version)),
        member("scope", quoted(coverage.scope)),
        member("scanned_nodes", number(coverage.scannedNodes)),
        member("scanned_text_units", number(coverage.scannedTextUnits)),
    };
    appendFlag(members, "node_limit_reached", coverage.nodeLimitReached);
    appendFlag(members, "text_limit_reached", coverage.textLimitReached);
    if (coverage.omittedTextBytes != 0)
        members.append(member("omitted_text_bytes", number(coverage.omittedTextBytes)));
    return object(members);
}

// A region record for the model: name and summary cut to their display limits, each then
// flagged; a heading's level; empty members left out. The label form (reserved at small
// budgets so a focused read stays discoverable) leaves the summary out and says so.
QByteArray regionRecord(const RegionRecord &region, bool label = false)
{
    QList<QByteArray> members{
        member("ref", quoted(region.ref)),
        member("kind", quoted(region.kind)),
    };
    if (!region.name.isEmpty()) {
        bool truncated = false;
        members.append(
            member("name", quoted(ModelProjection::truncateForDisplay(
                               region.name, ModelProjection::kNameLimitBytes, &truncated))));
        appendFlag(members, "name_truncated", truncated);
    }
    if (region.level > 0)
        members.append(member("level", number(region.level)));
    if (!region.summary.isEmpty() && label) {
        members.append(member("summary_omitted", boolean(true)));
    } else if (!region.summary.isEmpty()) {
        bool truncated = false;
        members.append(member(
            "summary", quoted(ModelProjection::truncateForDisplay(
                           region.summary, ModelProjection::kSummaryLimitBytes, &truncated))));
        appendFlag(members, "summary_truncated", truncated || region.summaryTruncated);
    }
    return object(members);
}

// Compact region coverage: version and scope always, the exhaustion flag when set. The scan
// counter stays in the canonical observation; omissions are the projection's own count.
QByteArray regionCoverage(const RegionCoverage &coverage)
{
    QList<QByteArray> members{
        member("version", number(coverage.version)),
        member("scope", quoted(coverage.scope)),
    };
    appendFlag(members, "scan_exhausted", coverage.scanExhausted);
    return object(members);
}

QByteArray waitOutcome(const WaitOutcome &wait)
{
    return object({
        member("status", quoted(waitStatusString(wait.status))),
        member("scope", quoted(wait.scope)),
        member("observations", number(wait.observations)),
        member("elapsed_ms", number(wait.elapsedMs)),
    });
}

// What the act that returned this observation did: whether it sent anything, and a scroll's
// measured distance. Content-free, so always shown whole.
QByteArray actionOutcome(const ActionOutcome &action)
{
    QList<QByteArray> members{member("kind", quoted(action.kind)),
                              member("dispatched", boolean(action.dispatched))};
    if (action.scrolledPx)
        members.append(member("scrolled_px", number(*action.scrolledPx)));
    return object(members);
}

QByteArray confirmedDraftMember(const QString &draft)
{
    return member("confirmed_draft", quoted(draft));
}

// What one candidate view admits. Elements and regions are always prefixes of the canonical
// lists.
struct Plan
{
    int exposed = 0;
    int regions = 0;
    bool regionLabel = false; // the one exposed region is in its label form
    bool url = false;
    bool title = false;
    qsizetype textUnits = 0; // UTF-16 units of canonical text kept
    qint64 textBytes = 0;    // their UTF-8 bytes
    qsizetype textJson = 0;  // their escaped bytes
};

// The parts of one observation's view, serialized once; a plan's size is their sum, so
// trying a plan costs no serialization.
class View
{
public:
    // `showDraft`: a confirmed draft is shown whole; otherwise only said to be there.
    View(const BrowserObservation &observation, bool showDraft) : m_observation(observation)
    {
        m_fixedHead.append(member("revision", quoted(observation.revision)));
        if (observation.readiness)
            m_fixedHead.append(
                member("readiness", quoted(readinessString(*observation.readiness))));
        if (observation.waitFor)
            m_fixedHead.append(member("wait_for", waitOutcome(*observation.waitFor)));
        if (observation.action)
            m_fixedHead.append(member("action", actionOutcome(*observation.action)));
        if (observation.confirmedDraft)
            m_fixedHead.append(showDraft ? confirmedDraftMember(*observation.confirmedDraft)
                                         : member("confirmed_draft_omitted", boolean(true)));
        if (observation.focus) {
            const FocusState &focus = *observation.focus;
            m_fixedHead.append(member("focus", object({
                                                   member("region_ref", quoted(focus.regionRef)),
                                                   member("text_offset", number(focus.textOffset)),
                                                   member("text_bytes", number(focus.textBytes)),
                                               })));
            // {"region_ref":..,"expected_revision":..,"text_offset": <offset + shown bytes>}
            m_nextTextHead = QByteArrayLiteral(R"("next_text":{"region_ref":)") +
                             quoted(focus.regionRef) +
                             QByteArrayLiteral(R"(,"expected_revision":)") +
                             quoted(observation.revision) + QByteArrayLiteral(R"(,"text_offset":)");
            m_focusOffset = focus.textOffset;
        }
        // Tokens in the address stay out of the model's sight.
        const QString url =
            QString::fromUtf8(PageAddress::redactedForModel(observation.url).toEncoded());
        if (!url.isEmpty()) {
            m_url = member("url", quoted(url));
            m_urlOmitted = member("url_omitted", boolean(true));
        }
        if (!observation.title.isEmpty()) {
            bool truncated = false;
            const QString title = ModelProjection::truncateForDisplay(
                observation.title, ModelProjection::kTitleLimitBytes, &truncated);
            m_title.append(member("title", quoted(title)));
            appendFlag(m_title, "title_truncated", truncated);
            m_titleOmitted = member("title_omitted", boolean(true));
        }
        m_blocked = member("expansion_blocked", quoted(QStringLiteral("inline_control_too_large")));
        m_records.reserve(observation.elements.size());
        m_quotedRefs.reserve(observation.elements.size());
        m_recordPrefix.reserve(observation.elements.size() + 1);
        m_recordPrefix.append(0);
        for (const ElementRecord &element : observation.elements) {
            m_records.append(elementRecord(element));
            m_quotedRefs.append(quoted(element.ref));
            m_recordPrefix.append(m_recordPrefix.last() + m_records.last().size());
        }
        if (observation.coverage.nextCursor)
            m_cursorRequest =
                member("next_observe",
                       object({member("cursor", quoted(*observation.coverage.nextCursor))}));
        // The provider cursor continues after the whole window: it is shown only when the
        // whole window was (otherwise it would skip controls the model did not see).
        m_coverage = member("coverage", candidateCoverage(observation.coverage));
        CandidateCoverage withheld = observation.coverage;
        withheld.nextCursor.reset();
        m_coverageWithoutCursor = member("coverage", candidateCoverage(withheld));
        m_fixedTail.append(member("text_coverage", textCoverage(observation.textCoverage)));
        if (observation.regionCoverage) {
            m_hasRegions = true;
            m_canonicalOmittedRegions = observation.regionCoverage->omittedRegions;
            m_regionPrefix.append(0);
            for (const RegionRecord &region : observation.regions) {
                m_regionRecords.append(regionRecord(region));
                m_regionPrefix.append(m_regionPrefix.last() + m_regionRecords.last().size());
            }
            if (!observation.regions.isEmpty())
                m_firstRegionLabel = regionRecord(observation.regions.first(), true);
            m_fixedTail.append(
                member("region_coverage", regionCoverage(*observation.regionCoverage)));
        }
        m_textBytes = utf8Size(observation.text);
    }

    int elementCount() const { return int(m_records.size()); }
    int regionCount() const { return int(m_regionRecords.size()); }
    const QString &text() const { return m_observation.text; }
    qint64 textBytes() const { return m_textBytes; }
    bool hasUrl() const { return !m_url.isEmpty(); }
    bool hasTitle() const { return !m_title.isEmpty(); }
    // Extraction mode: the extraction member, written right after the revision.
    void setExtraction(QByteArray member) { m_extraction = std::move(member); }

    // The bytes the prose and its omission count add to a plan (each after a comma: the
    // revision always comes first).
    qsizetype textSize(const Plan &plan) const
    {
        qsizetype size = 0;
        if (plan.textUnits > 0)
            size += 1 + qsizetype(sizeof(R"("text":)") - 1) + 2 + plan.textJson;
        if (m_textBytes - plan.textBytes > 0) {
            size += 1 + qsizetype(sizeof(R"("omitted_text_bytes":)") - 1) +
                    decimalDigits(m_textBytes - plan.textBytes);
            if (!m_nextTextHead.isEmpty())
                size +=
                    1 + m_nextTextHead.size() + decimalDigits(m_focusOffset + plan.textBytes) + 1;
        }
        return size;
    }

    qsizetype measure(const Plan &plan) const
    {
        Measure sink;
        write(plan, sink);
        return kEnvelopeHead.size() + sink.size() + kEnvelopeTail.size();
    }

    QByteArray render(const Plan &plan) const
    {
        Render sink;
        write(plan, sink);
        return kEnvelopeHead + sink.finish() + kEnvelopeTail;
    }

private:
    class Measure
    {
    public:
        void add(const QByteArray &bytes)
        {
            add(bytes.size(), [](QByteArray &) {});
        }
        template <typename Writer> void add(qsizetype size, Writer &&)
        {
            m_size += size + (m_count > 0 ? 1 : 0);
            ++m_count;
        }
        qsizetype size() const { return m_size + 2; }

    private:
        qsizetype m_size = 0;
        int m_count = 0;
    };

    class Render
    {
    public:
        Render() { m_out.append('{'); }
        void add(const QByteArray &bytes)
        {
            add(bytes.size(), [&bytes](QByteArray &out) { out.append(bytes); });
        }
        template <typename Writer> void add(qsizetype, Writer &&writer)
        {
            if (m_count++ > 0)
                m_out.append(',');
            writer(m_out);
        }
        QByteArray finish()
        {
            m_out.append('}');
            return m_out;
        }

    private:
        QByteArray m_out;
        int m_count = 0;
    };

    // "key":N without allocating while a plan is only measured.
    template <typename Sink> static void addNumber(Sink &sink, const char *key, qint64 value)
    {
        const qsizetype keySize = qsizetype(qstrlen(key)) + 3;
        sink.add(keySize + decimalDigits(value),
                 [key, value](QByteArray &out) { out.append(member(key, number(value))); });
    }

    static qsizetype decimalDigits(qint64 value)
    {
        qsizetype digits = value < 0 ? 2 : 1;
        for (qint64 rest = value / 10; rest != 0; rest /= 10)
            ++digits;
        return digits;
    }

    template <typename Sink> void write(const Plan &plan, Sink &sink) const
    {
        for (const QByteArray &part : m_fixedHead)
            sink.add(part);
        if (!m_extraction.isEmpty())
            sink.add(m_extraction);
        if (hasUrl())
            sink.add(plan.url ? m_url : m_urlOmitted);
        if (hasTitle()) {
            if (plan.title) {
                for (const QByteArray &part : m_title)
                    sink.add(part);
            } else {
                sink.add(m_titleOmitted);
            }
        }
        static const QByteArray elementsKey = QByteArrayLiteral(R"("elements":)");
        const int exposed = plan.exposed;
        const qsizetype elementsSize =
            elementsKey.size() + 2 + m_recordPrefix.at(exposed) + std::max(0, exposed - 1);
        sink.add(elementsSize, [this, exposed](QByteArray &out) {
            out.append(elementsKey);
            out.append('[');
            for (int i = 0; i < exposed; ++i) {
                if (i > 0)
                    out.append(',');
                out.append(m_records.at(i));
            }
            out.append(']');
        });
        const int omitted = elementCount() - exposed;
        if (omitted > 0)
            addNumber(sink, "omitted_elements", omitted);
        if (omitted > 0 && exposed == 0) {
            // The first record cannot fit: exposing a later one would hide it from
            // continuation, so nothing is exposed and the gap is said out loud.
            sink.add(m_blocked);
        } else if (omitted > 0) {
            // {"after":"<ref>"}: the last control actually exposed.
            static const QByteArray head = QByteArrayLiteral(R"("next_observe":{"after":)");
            const QByteArray &ref = m_quotedRefs.at(exposed - 1);
            sink.add(head.size() + ref.size() + 1, [&ref](QByteArray &out) {
                out.append(head);
                out.append(ref);
                out.append('}');
            });
        } else if (!m_cursorRequest.isEmpty()) {
            sink.add(m_cursorRequest); // the whole provider window, or an empty one, was shown
        }
        if (m_hasRegions) {
            static const QByteArray regionsKey = QByteArrayLiteral(R"("regions":)");
            const int regions = plan.regions;
            const bool label = plan.regionLabel && regions == 1;
            const qsizetype records =
                label ? m_firstRegionLabel.size() : m_regionPrefix.at(regions);
            sink.add(regionsKey.size() + 2 + records + std::max(0, regions - 1),
                     [this, regions, label](QByteArray &out) {
                         out.append(regionsKey);
                         out.append('[');
                         for (int i = 0; i < regions; ++i) {
                             if (i > 0)
                                 out.append(',');
                             out.append(label ? m_firstRegionLabel : m_regionRecords.at(i));
                         }
                         out.append(']');
                     });
            const qint64 omittedRegions = m_canonicalOmittedRegions + regionCount() - regions;
            if (omittedRegions > 0)
                addNumber(sink, "omitted_regions", omittedRegions);
        }
        if (plan.textUnits > 0) {
            static const QByteArray textKey = QByteArrayLiteral(R"("text":)");
            const qsizetype units = plan.textUnits;
            sink.add(textKey.size() + 2 + plan.textJson, [this, units](QByteArray &out) {
                out.append(textKey);
                out.append('"');
                appendEscaped(out, m_observation.text, units);
                out.append('"');
            });
        }
        if (m_textBytes - plan.textBytes > 0) {
            addNumber(sink, "omitted_text_bytes", m_textBytes - plan.textBytes);
            if (!m_nextTextHead.isEmpty()) {
                // The complete next focused read, past the text actually shown.
                const qint64 next = m_focusOffset + plan.textBytes;
                sink.add(m_nextTextHead.size() + decimalDigits(next) + 1,
                         [this, next](QByteArray &out) {
                             out.append(m_nextTextHead);
                             out.append(number(next));
                             out.append('}');
                         });
            }
        }
        sink.add(plan.exposed == elementCount() ? m_coverage : m_coverageWithoutCursor);
        for (const QByteArray &part : m_fixedTail)
            sink.add(part);
    }

    const BrowserObservation &m_observation;
    QList<QByteArray> m_fixedHead;
    QByteArray m_url;
    QByteArray m_urlOmitted;
    QList<QByteArray> m_title;
    QByteArray m_titleOmitted;
    QList<QByteArray> m_records;
    QList<qsizetype> m_recordPrefix;
    QList<QByteArray> m_quotedRefs;
    QByteArray m_blocked;
    QByteArray m_cursorRequest;
    QByteArray m_coverage;
    QByteArray m_coverageWithoutCursor;
    QList<QByteArray> m_fixedTail;
    qint64 m_textBytes = 0;
    bool m_hasRegions = false;
    qint64 m_canonicalOmittedRegions = 0;
    QList<QByteArray> m_regionRecords;
    QList<qsizetype> m_regionPrefix;
    QByteArray m_firstRegionLabel;
    QByteArray m_nextTextHead;
    qint64 m_focusOffset = 0;
    QByteArray m_extraction;
};

ModelProjection::Projection wholeObservationOmission()
{
    ModelProjection::Projection projection;
    projection.bytes = kEnvelopeHead + kWholeOmission + kEnvelopeTail;
    projection.wholeObservationOmitted = true;
    return projection;
}

// The largest number of exposed elements in [from, to] for which the plan fits.
std::optional<int> largestFitting(const View &view, Plan plan, int from, int to, qsizetype budget)
{
    for (int exposed = to; exposed >= from; --exposed) {
        plan.exposed = exposed;
        if (view.measure(plan) <= budget)
            return exposed;
    }
    return std::nullopt;
}

} // namespace

QString ModelProjection::truncateForDisplay(const QString &text, int limitBytes, bool *truncated)
{
    if (truncated)
        *truncated = false;
    if (utf8Size(text) <= limitBytes)
        return text;
    qint64 bytes = 0;
    qsizetype units = 0;
    while (units < text.size()) {
        const CodePoint point = codePointAt(text, units);
        if (bytes + point.utf8Bytes > limitBytes - kEllipsisBytes)
            break;
        bytes += point.utf8Bytes;
        units += point.units;
    }
    if (truncated)
        *truncated = true;
    return text.left(units) + QChar(kEllipsis);
}

ModelProjection::Projection ModelProjection::build(const BrowserObservation &observation,
                                                   int budgetBytes)
{
    // The model's own submitted text, confirmed in its editor, is shown whole when it takes at
    // most a quarter of the budget and the observation still fits with it; otherwise the view
    // says only that it is there.
    const bool draftFits =
        observation.confirmedDraft && confirmedDraftMember(*observation.confirmedDraft).size() <=
                                          std::max(budgetBytes, kMinBudgetBytes) / 4;
    if (draftFits) {
        Projection withDraft = buildView(observation, budgetBytes, true);
        if (!withDraft.wholeObservationOmitted)
            return withDraft;
    }
    return buildView(observation, budgetBytes, false);
}

ModelProjection::Projection ModelProjection::buildView(const BrowserObservation &observation,
                                                       int budgetBytes, bool showDraft)
{
    const qsizetype budget = std::max(budgetBytes, kMinBudgetBytes);
    View view(observation, showDraft);
    const int count = view.elementCount();

    // 0. Extraction mode: the requested rows (whole rows, a prefix) come before every control,
    //    the location, the title and prose; else the whole extraction is omitted explicitly.
    std::optional<ExtractionProjection::Fit> rows;
    const auto finish = [&view, &rows, budget](const Plan &plan, bool blocked) {
        Projection projection;
        projection.bytes = view.render(plan);
        Q_ASSERT(projection.bytes.size() == view.measure(plan));
        if (projection.bytes.size() > budget)
            return wholeObservationOmission(); // unreachable; the budget is a hard promise
        projection.exposedElements = plan.exposed;
        projection.exposedRegions = plan.regions;
        projection.expansionBlocked = blocked;
        projection.urlOmitted = view.hasUrl() && !plan.url;
        projection.titleOmitted = view.hasTitle() && !plan.title;
        projection.omittedTextBytes = view.textBytes() - plan.textBytes;
        if (rows) {
            projection.exposedRows = rows->rows;
            projection.extractionOmitted = rows->omitted;
        }
        return projection;
    };
    if (observation.extraction) {
        rows = ExtractionProjection::fit(*observation.extraction,
                                         [&view, budget](const QByteArray &member) {
                                             view.setExtraction(member);
                                             return view.measure(Plan{}) <= budget;
                                         });
        view.setExtraction(rows->member);
        // While requested rows are left out, nothing optional takes their place.
        if (rows->omitted || rows->rows < observation.extraction->rows.size()) {
            if (view.measure(Plan{}) > budget)
                return wholeObservationOmission();
            return finish(Plan{}, count > 0);
        }
    }

    // 1. Revision and compact coverage, with every omission stated. The first control that
    //    can fit is reserved before any optional context, so a continuation after it always
    //    advances.
    Plan plan;
    bool blocked = false;
    if (count > 0) {
        if (const std::optional<int> first = [&]() -> std::optional<int> {
                for (int exposed = 1; exposed <= count; ++exposed) {
                    Plan candidate = plan;
                    candidate.exposed = exposed;
                    if (view.measure(candidate) <= budget)
                        return exposed;
                }
                return std::nullopt;
            }())
            plan.exposed = *first;
        else
            blocked = true;
    }
    if (plan.exposed == 0 && view.measure(plan) > budget)
        return wholeObservationOmission();

    // 1b. A region label right after it, so a focused read stays discoverable (the first
    //     region is the highest-priority one: an open dialog, an alert...).
    if (view.regionCount() > 0) {
        Plan candidate = plan;
        candidate.regions = 1;
        candidate.regionLabel = true;
        if (view.measure(candidate) <= budget)
            plan = candidate;
    }

    // 2. Optional location, then title, each only if the reserved controls still fit.
    const int from = plan.exposed;
    const int to = blocked ? 0 : count;
    if (view.hasUrl()) {
        Plan candidate = plan;
        candidate.url = true;
        if (largestFitting(view, candidate, from, to, budget))
            plan.url = true;
    }
    if (view.hasTitle()) {
        Plan candidate = plan;
        candidate.title = true;
        if (largestFitting(view, candidate, from, to, budget))
            plan.title = true;
    }

    // 3. More controls, a contiguous prefix so continuation never skips one.
    plan.exposed = largestFitting(view, plan, from, to, budget).value_or(from);

    // 3b. More regions, whole records, before prose (regions are bounded evidence; prose
    //     repeats what they summarize).
    for (int regions = view.regionCount(); regions >= std::max(plan.regions, 1); --regions) {
        Plan candidate = plan;
        candidate.regions = regions;
        candidate.regionLabel = false;
        if (view.measure(candidate) <= budget) {
            plan = candidate;
            break;
        }
    }

    // 4. Prose, cut at a code point. Sizes are not monotonic only by the omission count's
    //    member (at most ~30 bytes), so the scan stops once it is past that margin.
    const QString &text = view.text();
    const qsizetype withoutText = view.measure(plan) - view.textSize(plan);
    Plan best = plan;
    Plan candidate = plan;
    constexpr qsizetype kOmissionMemberMargin = 40;
    while (candidate.textUnits < text.size()) {
        const CodePoint point = codePointAt(text, candidate.textUnits);
        candidate.textUnits += point.units;
        candidate.textBytes += point.utf8Bytes;
        candidate.textJson += point.jsonBytes;
        const qsizetype size = withoutText + view.textSize(candidate);
        if (size <= budget)
            best = candidate;
        else if (size > budget + kOmissionMemberMargin)
            break;
    }
    return finish(best, blocked);
}

QByteArray ModelProjection::project(const BrowserObservation &observation, int budgetBytes)
{
    return build(observation, budgetBytes).bytes;
}

Result<QByteArray> ModelProjection::projectOrFail(const BrowserObservation &observation,
                                                  int budgetBytes)
{
    if (budgetBytes < kMinBudgetBytes)
        return ReasonCode::OutputInvalid;
    Projection projection = build(observation, budgetBytes);
    if (projection.wholeObservationOmitted)
        return ReasonCode::OutputInvalid;
    return std::move(projection.bytes);
}

} // namespace veetbot
