"""bookkit: the book's build pipeline (load -> resolve -> render -> check)."""
