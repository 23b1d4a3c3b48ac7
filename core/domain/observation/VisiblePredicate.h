#pragma once

#include "domain/Result.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace veetbot {

struct ElementRecord;

// An exact visible-control predicate: browser.observe's {wait_for} and, later, browser.act's
// postcondition. It matches an element of an observation window by exact role and exact name, and
// holds when exactly one such element also has the requested state.
struct VisiblePredicate
{
    static constexpr int kMaxRoleUnits = 64;
    static constexpr int kMaxNameUnits = 1024;
    static constexpr int kMaxTimeoutMs = 5000;
    static constexpr int kDefaultTimeoutMs = 2000;

    QString role; // 1-64 UTF-16 units
    QString name; // 0-1,024 UTF-16 units; compared exactly with the canonical name
    std::optional<bool> disabled;
    std::optional<bool> checked; // true / false; a mixed checkbox matches neither
    int timeoutMs = kDefaultTimeoutMs;

    // Strict: {role, name, disabled?, checked?, timeout_ms?}; anything else is
    // ToolArguments::invalidArguments().
    static Result<VisiblePredicate> fromJson(const QJsonValue &json);
    // Always writes timeout_ms; fromJson(toJson()) gives the same predicate.
    QJsonObject toJson() const;

    bool matchesRoleAndName(const ElementRecord &element) const;
    bool matchesState(const ElementRecord &element) const;

    friend bool operator==(const VisiblePredicate &, const VisiblePredicate &) = default;
};

} // namespace veetbot
