#pragma once

#include "collector/CollectorCalls.h"
#include "domain/Result.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/CaptureAssembly.h"
#include "domain/observation/ElementFacts.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/web/OriginPolicy.h"
#include "domain/web/TestOverrides.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QUrl>

#include <functional>
#include <optional>

namespace veetbot {

// The committed revision of one browser's page and everything that belongs to it — the
// collector capture that holds its handles, its element and region refs, their private facts,
// the continuation cursor, the focus, the captured text and the draft receipt — and the one
// capture pipeline that replaces it, the same for every engine (docs/observations.md).
// Revision-bound references are decided here: what an observe or act names is checked
// against exactly this state, and a capture publishes a new revision only after the whole
// collector answer validated and the collector committed it.
class PageRevision
{
public:
    // Where an observe request's capture starts (resolve()).
    struct Window
    {
        Collector::CaptureWindow window;
        // The window's first candidate position when known (first window, cursor).
        std::optional<int> expectedOffset = 0;
        // A focused read's text continuation offset (UTF-8), else 0.
        int focusTextOffset = 0;
        std::optional<ExtractRequest> extract;
    };

    // What an engine hands a capture.
    struct Capture
    {
        CollectorRunner run;           // the collector world of the page
        std::function<QUrl()> liveUrl; // the page's URL now
        std::function<bool()> isLive;  // false once the operation that started it ended
        std::optional<Readiness> readiness;
        Window window;
        std::optional<ActionOutcome> action; // the act this capture settles
        // The rich-text submission of the act this capture settles; else the kept draft is
        // checked.
        std::optional<QString> actDraft;
        // What the write guard saw since the previous capture (ActGuard::takeEvidence), added
        // to the page evidence when the revision is published.
        std::function<void(PageEvidence &)> guardEvidence;
    };
    // A capture's end: the observation, or its failure. `recycle`: the page did not answer
    // (stuck or gone); the engine replaces it before answering. A failure after which the
    // current revision is still valid (a continuation the collector refused as page_changed)
    // keeps it; every other failure has invalidated it.
    struct Outcome
    {
        Result<BrowserObservation> result;
        bool recycle = false;
    };

    PageRevision(OriginPolicy policy, TestOverrides overrides);

    // The window of `request` against the current revision, or the refusal before any
    // capture (the current revision stays valid): tool.browser.page_changed for what is not
    // current, region_not_actionable for a region anchor, focus_required for a text offset
    // outside the focused region, invalid arguments for a wait (the tool polls).
    Result<Window> resolve(const ObserveRequest &request) const;

    // Captures `capture.window` and, when everything validated, publishes the new revision.
    // `done` runs once, unless the capture stopped being live first.
    void capture(const Capture &capture, std::function<void(Outcome)> done);

    // Retires the revision and every reference of it.
    void invalidate();

    const QString &revision() const { return m_revision; }
    const QString &captureId() const { return m_captureId; }
    bool isCurrent(const QString &revision) const
    {
        return !m_revision.isEmpty() && revision == m_revision;
    }
    bool hasElement(const QString &ref) const { return m_refs.contains(ref); }
    bool hasRegion(const QString &ref) const { return m_regionRefs.contains(ref); }
    // The private facts of an element of the current revision; null when there is none.
    const ElementFacts *facts(const QString &ref) const;
    std::optional<ElementFacts> elementFacts(const QString &revision, const QString &ref) const;
    std::optional<PageEvidence> pageEvidence(const QString &revision) const;

    // The draft receipt: the text of the last rich-text type, echoed only while its editor
    // still renders exactly it. Dropped by a navigation (its editor goes with the page) and
    // by a new type.
    void dropDraft() { m_draft.reset(); }

private:
    void fail(const Capture &capture, const QString &captureId, ReasonCode reason,
              std::function<void(Outcome)> done);

    OriginPolicy m_policy;
    TestOverrides m_overrides;

    struct Cursor
    {
        QString token; // random, minted here; the model never sees a position
        int position = 0;
    };
    QString m_revision;
    QString m_captureId;
    QSet<QString> m_refs;
    QSet<QString> m_regionRefs; // evidence only: never targets or anchors
    QHash<QString, ElementFacts> m_facts;
    PageEvidence m_page;
    std::optional<Cursor> m_cursor;
    std::optional<CaptureAssembly::Focus> m_focus;
    // The committed capture's readable text as the collector gave it: what a continuation
    // that did not read the unchanged page again carries.
    std::optional<CaptureAssembly::CapturedText> m_text;
    std::optional<QString> m_draft;
};

} // namespace veetbot
