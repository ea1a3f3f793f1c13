"""Reading examples and pages: snippets, their claims, a page's includes, the site's configuration."""
