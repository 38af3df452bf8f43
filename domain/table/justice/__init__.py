"""Justice at the table: 误操作 undo, reports, votes, the arbiter, penalties, appeals."""
