"""Research tables and questions: the tables generator and the values Erickson's questions ask about."""
