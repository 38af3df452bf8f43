'use strict';
// The table's own facts and justice's, by their record names (domain/table/facts.py and
// domain/table/justice/facts.py): every other fact of a record is the game's. One list for
// the renderer (render.js) and the table's fold (tablestate.js).

const TABLE_FACTS = new Set([
  'GameCreated', 'SeatTaken', 'SeatCommitted', 'SeatRekeyed', 'ContributionRevealed', 'RevealWithheld',
  'RedealOpened', 'RedealSecretsRevealed', 'DealAbandoned', 'ShuffleRevealed', 'HandClosed', 'GameStarted',
]);
const JUSTICE_FACTS = new Set([
  'MoveRetracted', 'ViolationReported', 'AppealFiled', 'VoteCast', 'ArbiterRuled', 'CaseClosed',
  'PenaltyApplied', 'PenaltyRevoked', 'GameRedealt', 'TurnTimedOut', 'AttemptRefereed', 'RedealAgreed',
  'CaseTimedOut',
]);

module.exports = { TABLE_FACTS, JUSTICE_FACTS };
