#pragma once

#include "ReasonCode.h"

#include <QString>

#include <utility>
#include <variant>

namespace veetbot {

// A stable failure: a wire code and a fixed message. Never carries page, site, secret or
// provider text.
struct Error
{
    QString code;
    QString message;

    static Error fromReason(ReasonCode reason)
    {
        return Error{reasonCodeString(reason), reasonCodeMessage(reason)};
    }
    std::optional<ReasonCode> reason() const { return reasonCodeFromString(code); }
    bool is(ReasonCode r) const { return code == reasonCodeString(r); }
    // Whether an act that failed with this error after its dispatch gate opened is still
    // certain of what reached the site: the write guard refused every request that could
    // write (tool.browser.write_requires_approval). Every other failure after the gate is
    // outcome_unknown.
    bool certainAfterDispatch() const { return is(ReasonCode::WriteRequiresApproval); }
    friend bool operator==(const Error &, const Error &) = default;
};

// std::expected-like result used at module boundaries. Never dropped silently: a caller that
// means to ignore one says so with a (void) cast and a comment why.
template <typename T> class [[nodiscard]] Result
{
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Error error) : m_value(std::move(error)) {}
    Result(ReasonCode reason) : m_value(Error::fromReason(reason)) {}

    bool ok() const { return std::holds_alternative<T>(m_value); }
    explicit operator bool() const { return ok(); }
    const T &value() const & { return std::get<T>(m_value); }
    T &value() & { return std::get<T>(m_value); }
    T &&value() && { return std::get<T>(std::move(m_value)); }
    const T &operator*() const & { return value(); }
    const T *operator->() const { return &value(); }
    const Error &error() const { return std::get<Error>(m_value); }

private:
    std::variant<T, Error> m_value;
};

struct Unit
{
};

} // namespace veetbot
