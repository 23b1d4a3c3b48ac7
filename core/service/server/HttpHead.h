#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <optional>

namespace veetbot {

// The head of one HTTP request (its request line and header lines) as it arrives, read
// before anything else looks at it: at most kMaxBytes in all and kMaxHeaderLines header
// lines. The buffer is reserved once at its bound and never grows past it, so a client that
// sends an endless head costs kMaxBytes and no more; a reader asks room() and never reads
// more. Never keeps or returns a byte beyond what was read into it.
class HttpHead
{
public:
    static constexpr qsizetype kMaxBytes = 16 * 1024;
    static constexpr int kMaxHeaderLines = 100;

    enum class State
    {
        Incomplete, // no empty line yet, within both bounds
        Complete,   // the empty line arrived within both bounds
        TooLarge,   // a bound was passed first: answered 431, never parsed
    };

    HttpHead();

    // How many bytes the next read may take (0 once complete or too large).
    qsizetype room() const;
    // Takes bytes read from the connection: at most room() are kept, the rest is refused
    // (the head is then too large).
    State append(QByteArrayView bytes);
    State state() const { return m_state; }

    // Everything read: the head, and whatever of the body arrived with it.
    const QByteArray &bytes() const { return m_bytes; }
    // The head's length up to and including its empty line (Complete only).
    qsizetype headLength() const { return m_state == State::Complete ? m_headLength : 0; }
    // The value of the one Authorization header of a complete head; nullopt when there is
    // none or more than one.
    std::optional<QByteArrayView> authorization() const;

private:
    void scan();

    QByteArray m_bytes;
    qsizetype m_scanned = 0;   // bytes already split into lines
    qsizetype m_lineStart = 0; // where the line being read began
    int m_lines = 0;           // complete lines so far, the request line included
    qsizetype m_headLength = 0;
    State m_state = State::Incomplete;
};

} // namespace veetbot
