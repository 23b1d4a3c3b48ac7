#include "PageRevision.h"

#include <algorithm>

namespace veetbot {

namespace {
constexpr int kCursorBytes = 24; // 192 random bits, 32 base64url characters
} // namespace

PageRevision::PageRevision(OriginPolicy policy, TestOverrides overrides)
    : m_policy(std::move(policy)), m_overrides(std::move(overrides))
{
}

Result<PageRevision::Window> PageRevision::resolve(const ObserveRequest &request) const
{
    Window resolved;
    Collector::CaptureWindow &window = resolved.window;
    switch (request.mode()) {
    case ObserveRequest::Mode::First:
        break;
    case ObserveRequest::Mode::After:
        // A region of the current revision is evidence, never an anchor.
        if (m_regionRefs.contains(request.value()))
            return ReasonCode::RegionNotActionable;
        if (m_revision.isEmpty() || !m_refs.contains(request.value()))
            return ReasonCode::PageChanged; // not an element ref of the current revision
        window.continuesCapture = m_captureId;
        window.afterRef = request.value();
        resolved.expectedOffset.reset(); // the anchor's recorded position, known to the collector
        break;
    case ObserveRequest::Mode::Cursor:
        if (m_revision.isEmpty() || !m_cursor || m_cursor->token != request.value())
            return ReasonCode::PageChanged; // stale, foreign or never minted
        window.continuesCapture = m_captureId;
        window.startPosition = m_cursor->position;
        resolved.expectedOffset = m_cursor->position;
        break;
    case ObserveRequest::Mode::WaitFor:
        // Polling is the tool's (tools/ObserveTool): the provider captures windows only.
        return ToolArguments::invalidArguments();
    case ObserveRequest::Mode::Extract: {
        // Only the current revision may be read into rows; anything else (an earlier
        // revision, another provider's, none) is refused before any capture.
        if (m_revision.isEmpty() || request.extractRequest().revision != m_revision)
            return ReasonCode::PageChanged;
        const ExtractRequest &extract = request.extractRequest();
        resolved.extract = extract;
        window.continuesCapture = m_captureId;
        window.extract = QJsonObject{
            {QStringLiteral("kind"), extractKindString(extract.kind)},
            {QStringLiteral("index"), extract.index},
            {QStringLiteral("columns"), int(extract.columns.size())},
            {QStringLiteral("limit"), extract.limit},
        };
        break;
    }
    case ObserveRequest::Mode::Focus: {
        const FocusRequest &focus = request.focusRequest();
        if (m_revision.isEmpty() || focus.expectedRevision != m_revision ||
            !m_regionRefs.contains(focus.regionRef))
            return ReasonCode::PageChanged; // stale revision, or not a current region
        if (focus.textOffset > 0) {
            // Text continuation: only within the region the current revision focused, at an
            // offset inside its captured text, between two code points.
            const bool matches = m_focus && m_focus->regionRef == focus.regionRef &&
                                 focus.textOffset <= m_focus->text.size() &&
                                 (focus.textOffset == m_focus->text.size() ||
                                  (quint8(m_focus->text.at(focus.textOffset)) & 0xC0) != 0x80);
            if (!matches)
                return ReasonCode::FocusRequired;
        }
        window.continuesCapture = m_captureId;
        window.focusRegion = focus.regionRef;
        resolved.focusTextOffset = focus.textOffset;
        break;
    }
    }
    return resolved;
}

void PageRevision::invalidate()
{
    m_revision.clear();
    m_captureId.clear();
    m_refs.clear();
    m_regionRefs.clear();
    m_facts.clear();
    m_page = {};
    m_cursor.reset();
    m_focus.reset();
    m_text.reset();
}

const ElementFacts *PageRevision::facts(const QString &ref) const
{
    const auto it = m_facts.constFind(ref);
    return it == m_facts.constEnd() ? nullptr : &*it;
}

std::optional<ElementFacts> PageRevision::elementFacts(const QString &revision,
                                                       const QString &ref) const
{
    if (!isCurrent(revision))
        return std::nullopt;
    if (const ElementFacts *found = facts(ref))
        return *found;
    return std::nullopt;
}

std::optional<PageEvidence> PageRevision::pageEvidence(const QString &revision) const
{
    if (!isCurrent(revision))
        return std::nullopt;
    return m_page;
}

void PageRevision::capture(const Capture &capture, std::function<void(Outcome)> done)
{
    const Window &window = capture.window;
    const QString captureId = randomToken(12);
    const QString refPrefix = randomToken(6);
    const QString revision = newRevision();
    const QUrl urlBefore = capture.liveUrl();
    // An extraction or a focus is refused like a continuation when the revision's document
    // is gone.
    const bool continuation = !window.window.afterRef.isEmpty() ||
                              window.window.startPosition.has_value() ||
                              !window.window.focusRegion.isEmpty() || window.extract.has_value();
    // A text continuation reads the same region text again from a later offset.
    const QByteArray previousFocusText =
        window.focusTextOffset > 0 && m_focus ? m_focus->text : QByteArray();
    // The draft receipt to check: the act's own rich-text submission, else the one kept.
    Collector::CaptureWindow callWindow = window.window;
    callWindow.draft = capture.actDraft ? capture.actDraft : m_draft;
    capture.run(
        Collector::captureCall(captureId, refPrefix, callWindow),
        [this, capture, captureId, revision, urlBefore, continuation, previousFocusText,
         draft = callWindow.draft, done](std::optional<QJsonObject> result) mutable {
            if (!capture.isLive())
                return;
            if (!result) {
                // No answer: the page is stuck or gone. Replacing it drops every handle.
                invalidate();
                done({ReasonCode::ProviderUnavailable, true});
                return;
            }
            if (continuation && !result->value(QStringLiteral("ok")).toBool() &&
                result->value(QStringLiteral("error")) == QLatin1String("page_changed")) {
                // The anchor is gone or moved, or the document is not the one the revision
                // was captured from. The collector decided that before capturing anything
                // and changed nothing: the current revision stays as it is.
                done({ReasonCode::PageChanged});
                return;
            }
            if (!result->value(QStringLiteral("ok")).toBool() || capture.liveUrl() != urlBefore) {
                fail(capture, captureId, ReasonCode::ProviderUnavailable, std::move(done));
                return;
            }
            if (!CaptureAssembly::restoreUnchangedText(*result,
                                                       continuation ? m_text : std::nullopt)) {
                fail(capture, captureId, ReasonCode::OutputInvalid, std::move(done));
                return;
            }
            const CaptureAssembly::CapturedText text = CaptureAssembly::capturedText(*result);
            if (!m_policy.allowsNavigation(urlBefore, m_overrides)) {
                fail(capture, captureId, ReasonCode::UrlDisallowed, std::move(done));
                return;
            }
            const CaptureAssembly::Request assembly{
                .url = urlBefore,
                .revision = revision,
                .cursorToken = randomToken(kCursorBytes),
                .evidencePrefix = randomToken(6),
                .readiness = capture.readiness,
                .expectedOffset = capture.window.expectedOffset,
                .focusTextOffset = capture.window.focusTextOffset,
                .previousFocusText = previousFocusText,
                .focusRequested = !capture.window.window.focusRegion.isEmpty(),
                .extract = capture.window.extract,
                .draft = draft,
                .action = capture.action,
            };
            Result<CaptureAssembly::Capture> assembled =
                CaptureAssembly::assemble(*result, assembly, m_overrides);
            if (!assembled) {
                fail(capture, captureId,
                     assembled.error().reason().value_or(ReasonCode::OutputInvalid),
                     std::move(done));
                return;
            }
            // Publish the revision, its handles and its cursor only after the whole result
            // validated and the collector committed the capture.
            std::optional<Cursor> cursor;
            if (assembled->nextPosition)
                cursor = Cursor{assembly.cursorToken, *assembled->nextPosition};
            capture.run(Collector::commitCall(captureId),
                        [this, capture, revision, captureId, cursor, text, done = std::move(done),
                         published = std::move(assembled).value()](
                            std::optional<QJsonObject> commit) mutable {
                            if (!capture.isLive())
                                return;
                            if (!commit || !commit->value(QStringLiteral("ok")).toBool()) {
                                // The document went while committing: nothing of it stays usable.
                                invalidate();
                                done({ReasonCode::ProviderUnavailable, !commit});
                                return;
                            }
                            m_revision = revision;
                            m_captureId = captureId;
                            m_refs.clear();
                            for (const ElementRecord &element : published.observation.elements)
                                m_refs.insert(element.ref);
                            m_regionRefs.clear();
                            for (const RegionRecord &region : published.observation.regions)
                                m_regionRefs.insert(region.ref);
                            m_cursor = cursor;
                            m_focus = published.focus;
                            m_text = text;
                            m_facts = published.facts;
                            m_page = published.page;
                            if (capture.guardEvidence) {
                                capture.guardEvidence(m_page);
                                m_page.lateWrites = std::clamp(m_page.lateWrites, 0,
                                                               int(PageEvidence::kMaxLateWrites));
                                m_page.strangerRequestsRefused =
                                    std::clamp(m_page.strangerRequestsRefused, 0,
                                               int(PageEvidence::kMaxLateWrites));
                            }
                            if (published.nextDraft)
                                m_draft = *published.nextDraft;
                            done({std::move(published.observation)});
                        });
        });
}

void PageRevision::fail(const Capture &capture, const QString &captureId, ReasonCode reason,
                        std::function<void(Outcome)> done)
{
    // A failed capture leaves no usable reference: the pending handles and the previous
    // revision are both released.
    invalidate();
    capture.run(Collector::discardCall(captureId),
                [capture, reason, done = std::move(done)](std::optional<QJsonObject> discarded) {
                    if (!capture.isLive())
                        return;
                    done({reason, !discarded});
                });
}

} // namespace veetbot
