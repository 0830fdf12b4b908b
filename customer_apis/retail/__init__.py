"""customer_apis/retail package."""
