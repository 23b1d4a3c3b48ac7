#include "HttpHead.h"

namespace veetbot {

HttpHead::HttpHead()
{
    m_bytes.reserve(kMaxBytes);
}

qsizetype HttpHead::room() const
{
    return m_state == State::Incomplete ? kMaxBytes - m_bytes.size() : 0;
}

HttpHead::State HttpHead::append(QByteArrayView bytes)
{
    if (m_state != State::Incomplete || bytes.isEmpty())
        return m_state;
    const qsizetype kept = qMin(bytes.size(), room());
    m_bytes.append(bytes.first(kept));
    scan();
    if (m_state == State::Incomplete && (kept < bytes.size() || room() == 0))
        m_state = State::TooLarge;
    return m_state;
}

void HttpHead::scan()
{
    for (; m_scanned < m_bytes.size() && m_state == State::Incomplete; ++m_scanned) {
        if (m_bytes.at(m_scanned) != '\n')
            continue;
        const qsizetype length = m_scanned + 1 - m_lineStart;
        m_lineStart = m_scanned + 1;
        // The request line, then header lines, then an empty line ("\r\n") that ends the head.
        if (m_lines > 0 && length == 2 && m_bytes.at(m_scanned - 1) == '\r') {
            m_headLength = m_scanned + 1;
            m_state = State::Complete;
            return;
        }
        ++m_lines;
        if (m_lines - 1 > kMaxHeaderLines)
            m_state = State::TooLarge;
    }
}

std::optional<QByteArrayView> HttpHead::authorization() const
{
    if (m_state != State::Complete)
        return std::nullopt;
    static constexpr QByteArrayView kName("authorization:");
    std::optional<QByteArrayView> found;
    const QByteArrayView head = QByteArrayView(m_bytes).first(m_headLength);
    qsizetype start = head.indexOf('\n') + 1; // after the request line
    while (start < head.size()) {
        const qsizetype end = head.indexOf('\n', start);
        QByteArrayView line = head.sliced(start, end - start);
        start = end + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.size() < kName.size() ||
            line.first(kName.size()).compare(kName, Qt::CaseInsensitive) != 0)
            continue;
        if (found)
            return std::nullopt; // repeated: ambiguous, never an answer
        found = line.sliced(kName.size()).trimmed();
    }
    return found;
}

} // namespace veetbot
