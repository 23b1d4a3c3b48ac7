#pragma once

#include "OwnerPolicy.h"
#include "domain/action/ActRequest.h"
#include "domain/action/ApprovalView.h"
#include "domain/authority/GrantCoverage.h"
#include "domain/authority/TaskGrant.h"
#include "domain/observation/ElementFacts.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"
#include "ports/StandingGrantStore.h"
#include "ports/TaskGrantStore.h"

#include <QString>
#include <QUuid>

#include <optional>

namespace veetbot {

// Which of the owner's authorities lets an act that policy sent to approval run without a
// card, in the order docs/authority.md gives them:
//  1. ordinary interaction: the owner's setting, turn and READY profile
//     (allowsOrdinaryInteraction), a control that did not try to write before, and
//     GrantCoverage::refuseAct() finding nothing on the observation's facts;
//  2. the session's standing grant, re-read with its profile on every act (routine
//     interaction only);
//  3. the session's active task grant, inside its scope: one use is consumed now;
//  4. otherwise the owner decides on a card, which offers a task grant when the page is in a
//     configured, non-sensitive task scope and the act would be covered there.
// The first three carry a DispatchConstraint the browser checks again on the live element just
// before input, and whose fence keeps the act's documents on allowed paths. The bounded scroll
// permission comes before all of them (ToolPolicy::decide() allows it outright).
class ActAuthority
{
public:
    // The session's authorities, as the owner's composition set them.
    struct Session
    {
        PolicySettings settings;
        PolicyContext context;
        ProfileScope owner;
        TaskGrantPins pins;
        TaskGrantStore *taskGrants = nullptr;
        StandingGrantStore *standingGrants = nullptr;
        std::optional<QUuid> standingGrant;
        std::optional<QString> purpose;
        // How long the act may take from now (a standing grant must still hold at its end).
        int actDeadlineMs = 0;
        TestOverrides overrides; // test hosts scope matching accepts (tests only)
    };

    struct Decision
    {
        enum class Kind
        {
            AskOwner,
            OrdinaryInteraction,
            StandingGrant,
            TaskGrant
        };
        Kind kind = Kind::AskOwner;
        // Set for every kind but AskOwner.
        std::optional<DispatchConstraint> constraint;
        // AskOwner: the task grant the card may offer (approve_for_task), if any.
        std::optional<TaskGrantOffer> offer;
        // TaskGrant: the use consumed.
        std::optional<TaskGrantUse> taskGrantUse;

        bool runsWithoutCard() const { return kind != Kind::AskOwner; }
    };

    // Whether ordinary interaction may stand in for an approval policy required: the owner's
    // setting is on, the turn is the owner's or the scheduler's (a schedule's occurrence), and
    // the isolated provider serves a READY profile. The act itself must then be covered
    // (GrantCoverage::refuseAct) on the facts of the observation that named its element.
    static bool allowsOrdinaryInteraction(const PolicySettings &settings,
                                          const PolicyContext &context);
    // Whether a task grant may be offered or used in this session: the same conditions, with
    // the owner's task-grant setting, and only in the owner's own turn: never a schedule's. The act
    // must then be covered inside the grant's scope (DispatchConstraint::covers with its prefix).
    static bool allowsTaskGrants(const PolicySettings &settings, const PolicyContext &context);

    explicit ActAuthority(Session session);

    const Session &session() const { return m_session; }
    // Whether task grants may be offered or used here (the setting, the context, a store and
    // complete pins).
    bool taskGrantsApply() const;

    // The decision for an act on `page` whose element the observation described by `facts`
    // (none: the element is unknown, and only the owner may decide). `knownWrite`: this
    // control's last act without a card tried to write, so a card decides now.
    Decision decide(const ActRequest &request, const std::optional<ElementFacts> &facts,
                    const PageFacts &page, bool knownWrite);

private:
    bool standingGrantAllows(const ActRequest &request, const ElementFacts &facts,
                             const QUrl &page) const;
    std::optional<Decision> useTaskGrant(const ActRequest &request, const ElementFacts &facts,
                                         const PageFacts &page);
    std::optional<TaskGrantOffer> taskGrantOffer(const ActRequest &request,
                                                 const ElementFacts &facts, const QUrl &page) const;

    Session m_session;
};

} // namespace veetbot
