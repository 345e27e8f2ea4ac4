-- PostgreSQL only (after the store's own migrations): every committed Apply
-- updates the ingest row, and this trigger tells the read nodes (LISTEN
-- pmx_data) at that commit, so they refresh their in-memory catalog.
CREATE FUNCTION pmx_data_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('pmx_data', NEW.applied::text);
	RETURN NULL;
END $$;
CREATE TRIGGER ingest_notify AFTER UPDATE ON ingest FOR EACH ROW EXECUTE FUNCTION pmx_data_notify();
