"""The Forty-Five family (Forty-Five, Twenty-Five, Auction Forty-Fives): rules, kernel,
analysis and tools."""
