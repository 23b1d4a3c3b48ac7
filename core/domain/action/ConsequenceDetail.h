#pragma once

// The consequence classifier's internals, shared by its three files and by nothing else:
// ConsequenceVocabulary.cpp (the vocabulary as data, and matching words against it),
// ConsequenceText.cpp (reading a text as it is displayed: Unicode normalisation, bidi, invisible
// characters, lookalikes) and ActionConsequence.cpp (the classification of an element).

#include "ActionConsequence.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <QStringView>

namespace veetbot::ConsequenceDetail {

// What a vocabulary entry stands for. Area entries name an administrative, sign-in, pricing or
// messaging area (sensitive in a path, not a consequence in a label). Neutral entries are
// phrases that hold a consequential word in another sense ("post code"); they take their
// words so the shorter entry inside them does not match.
enum class Category : quint8
{
    Consequence,
    Area,
    SignInArea, // an area where the visitor signs in, up or is verified (login, oauth, ...)
    Neutral
};

// What the vocabulary reads in a text's words.
struct WordsVerdict
{
    QSet<BrowserActionConsequence> named;
    bool area = false;       // any area, the sign-in areas included
    bool signInArea = false; // a sign-in, sign-up or verification area
    bool routine = false;
};
WordsVerdict judgeWords(const QStringList &words);
// A letter of a script no vocabulary phrase is written in (Georgian, Ethiopic, Tamil, ...).
// Digits, punctuation, symbols and emoji are not letters; letters shared by scripts count as
// readable.
bool hasUnreadableLetter(QStringView text);
// The index of `consequence` in kConsequencePriority (its size for any other).
int priorityOf(BrowserActionConsequence consequence);
// The roles an ordinary navigation control has, as a set and in the vocabulary's order.
const QSet<QString> &routineRoleSet();
QStringList routineRoleList();
// Lookalike letters and the Latin letter a reader takes each for.
const QHash<char16_t, QChar> &lookalikes();

// Normalisation (ConsequenceText.cpp): the text without invisible format characters and
// apostrophes, and its words, case-folded.
QString withoutInvisible(QStringView text);
QStringList wordsOf(const QString &text);

} // namespace veetbot::ConsequenceDetail
