;;; complex-edit-test.el --- ERT tests of the parts that need no server  -*- lexical-binding: t; -*-

;; emacs --batch -q -L emacs-client -l emacs-client/test/complex-edit-test.el \
;;   -f ert-run-tests-batch-and-exit
;; (tests/e2e/test_emacs.py runs it; the parts that talk to a server are tested there.)

;;; Code:

(require 'ert)
(require 'complex-edit)
(require 'complex-edit-review)

(defun complex-edit-test--utf16-point (position)
  "POSITION (:line :character, UTF-16) as a point of the current buffer."
  (save-excursion
    (goto-char (point-min))
    (forward-line (plist-get position :line))
    (let ((units (plist-get position :character)))
      (while (> units 0)
        (setq units (- units (if (> (char-after) #xFFFF) 2 1)))
        (forward-char)))
    (point)))

(defvar complex-edit-test--sent nil
  "The `complexEdit.applyReview' arguments the fake server received, newest first.")

(defun complex-edit-test--server (answer)
  "The server's side of `complexEdit.applyReview' for the review ANSWER, as :send.
The kept hunks land (through the editor, as `workspace/applyEdit' would) while
their old text is where they point; else `document_changed', nothing applied.
ANSWER's :fake-error, when set, is the JSON-RPC error it answers instead."
  (lambda (params on-result on-error)
    (let* ((arguments (aref (plist-get params :arguments) 0))
           (keep (append (plist-get arguments :keep) nil))
           (hunks (mapcar (lambda (id) (aref (plist-get answer :hunks) id)) keep))
           (regions (mapcar (lambda (hunk)
                              (let ((range (plist-get hunk :range)))
                                (cons (complex-edit-test--utf16-point (plist-get range :start))
                                      (complex-edit-test--utf16-point (plist-get range :end)))))
                            hunks)))
      (push arguments complex-edit-test--sent)
      (cond
       ((plist-get answer :fake-error) (funcall on-error (plist-get answer :fake-error)))
       ((cl-some (lambda (hunk region)
                   (not (equal (buffer-substring-no-properties (car region) (cdr region))
                               (plist-get hunk :oldText))))
                 hunks regions)
        (funcall on-result '(:success :json-false :applied :json-false
                             :reason "document_changed" :error "it moved")))
       (t
        (save-excursion
          (cl-mapc (lambda (hunk region)
                     (goto-char (car region))
                     (delete-region (car region) (cdr region))
                     (insert (plist-get hunk :newText)))
                   (reverse hunks) (reverse regions)))
        (funcall on-result
                 `(:success t :applied ,(if keep t :json-false)
                   :declined ,(- (length (plist-get answer :hunks)) (length keep)))))))))

(defun complex-edit-test--backend (version &optional answer)
  "A backend that reads positions in UTF-16 and is at VERSION.
Its server answers `complexEdit.applyReview' for the review ANSWER."
  (list :name 'test :version (lambda () version)
        :uri (lambda () "file:///tmp/complex-edit-test")
        :send (complex-edit-test--server answer)
        :to-point #'complex-edit-test--utf16-point))

(defun complex-edit-test--review (answer version)
  "Start the review of ANSWER (with a proposal id) in a buffer at VERSION."
  (let ((answer (complex-edit-with answer :proposalId "p1")))
    (setq complex-edit-test--sent nil)
    (complex-edit-review-start answer (complex-edit-test--backend version answer))))

(defun complex-edit-test--hunk (line old new)
  "A proposed change of the whole LINE (0-based) from OLD to NEW."
  `(:range (:start (:line ,line :character 0) :end (:line ,(1+ line) :character 0))
    :oldText ,old :newText ,new :label ,(format "Line %d" (1+ line))))

(defmacro complex-edit-test--with-buffer (text &rest body)
  "Run BODY in a buffer holding TEXT, with undo on; answers land in `answers'."
  (declare (indent 1))
  `(let ((buffer (get-buffer-create "complex-edit-test"))
         (answers nil))
     (unwind-protect
         (with-current-buffer buffer
           (erase-buffer)
           (buffer-enable-undo)
           (insert ,text)
           (undo-boundary)
           (let ((complex-edit-done-hook (list (lambda (answer) (push answer answers)))))
             ,@body))
       (kill-buffer buffer))))

(ert-deftest complex-edit-test-plist ()
  (let ((table (make-hash-table :test #'equal)))
    (puthash "success" t table)
    (puthash "hunks" (vector (let ((h (make-hash-table :test #'equal)))
                               (puthash "newText" "x" h) h))
             table)
    (let ((plist (complex-edit--plist table)))
      (should (eq (plist-get plist :success) t))
      (should (equal (plist-get (aref (plist-get plist :hunks) 0) :newText) "x")))))

(ert-deftest complex-edit-test-plist-of-a-list ()
  "lsp-mode may read a JSON array as a list: it becomes a vector like eglot's."
  (let ((table (make-hash-table :test #'equal)))
    (puthash "id" "e1" table)
    (should (equal (complex-edit--plist (list table)) [(:id "e1")]))))

(ert-deftest complex-edit-test-with ()
  (should (equal (complex-edit-with '(:a 1 :b 2) :b 3 :c 4) '(:a 1 :b 3 :c 4))))

(ert-deftest complex-edit-test-review-sends-the-kept-ids-and-reports-what-landed ()
  (complex-edit-test--with-buffer "alpha\nbeta\ngamma\ndelta\n"
    (complex-edit-test--review
     `(:success t :message "bumped" :version 3
       :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")
               ,(complex-edit-test--hunk 3 "delta\n" "DELTA\n")])
     3)
    (should buffer-read-only)
    (should (equal (buffer-string) "alpha\nbeta\ngamma\ndelta\n"))
    (complex-edit-review-keep)
    (complex-edit-review-drop)
    (should (equal complex-edit-test--sent '((:proposalId "p1" :keep [0]))))
    (should-not buffer-read-only)
    (should-not complex-edit-review-mode)
    (should (equal (buffer-string) "alpha\nBETA\ngamma\ndelta\n"))
    (should (equal (plist-get (car answers) :kept) 1))
    (should (equal (plist-get (car answers) :declined) 1))
    (should (eq (plist-get (car answers) :applied) t))))

(ert-deftest complex-edit-test-review-places-hunks-in-utf16 ()
  (complex-edit-test--with-buffer "x = \"😀\" + old\n"
    (complex-edit-test--review
     '(:success t :version 1
       :hunks [(:range (:start (:line 0 :character 11) :end (:line 0 :character 14))
                :oldText "old" :newText "new")])
     1)
    (should (equal (overlay-start (complex-edit--hunk-overlay
                                   (car (plist-get complex-edit--review :hunks))))
                   11))
    (complex-edit-review-keep)
    (should (equal (buffer-string) "x = \"😀\" + new\n"))))

(ert-deftest complex-edit-test-review-refuses-hunks-whose-text-moved ()
  (complex-edit-test--with-buffer "# typed\nalpha\nbeta\n"
    ;; Computed before "# typed" was added: line 1 is no longer "beta".
    (complex-edit-test--review
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     2)
    (should-not complex-edit-review-mode)
    (should (equal (buffer-string) "# typed\nalpha\nbeta\n"))
    (should (equal (plist-get (car answers) :reason) "document_changed"))
    (should (eq (plist-get (car answers) :applied) :json-false))))

(ert-deftest complex-edit-test-review-reports-the-servers-document-changed ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (complex-edit-test--review
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     1)
    (let ((inhibit-read-only t))         ; a change that is not the user's typing
      (save-excursion (goto-char (point-max)) (forward-line -1) (insert "b")))
    (complex-edit-review-keep)
    (should (equal complex-edit-test--sent '((:proposalId "p1" :keep [0]))))
    (should (equal (buffer-string) "alpha\nbbeta\n"))
    (should (equal (plist-get (car answers) :reason) "document_changed"))
    (should (equal (plist-get (car answers) :error) "kept 1 of 1 change, but it moved"))))

(ert-deftest complex-edit-test-review-says-when-the-proposal-is-gone ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (complex-edit-test--review
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")]
       :fake-error (:code -32602 :message "unknown proposal" :data (:code "unknown_proposal")))
     1)
    (complex-edit-review-keep)
    (should (equal (buffer-string) "alpha\nbeta\n"))
    (should (eq (plist-get (car answers) :success) :json-false))
    ;; The server's words and code, none made up here.
    (should (equal (plist-get (car answers) :error) "unknown proposal; nothing was applied"))
    (should (equal (plist-get (car answers) :reason) "unknown_proposal"))))

(ert-deftest complex-edit-test-review-quit-applies-nothing ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (complex-edit-test--review
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     1)
    (complex-edit-review-quit)
    (should (equal complex-edit-test--sent '((:proposalId "p1" :keep []))))
    (should (equal (buffer-string) "alpha\nbeta\n"))
    (should (equal (plist-get (car answers) :declined) 1))
    (should-not buffer-read-only)))

(ert-deftest complex-edit-test-no-server-refuses-before-asking ()
  "In a buffer no server manages, M-x complex-edit says so before it asks for anything."
  (with-temp-buffer
    (let ((complex-edit--backend-finders nil)
          (asked nil))
      (cl-letf (((symbol-function 'read-string) (lambda (&rest _) (setq asked t) "x")))
        (should-error (call-interactively #'complex-edit) :type 'user-error)
        (should-error (call-interactively #'complex-edit-review) :type 'user-error))
      (should-not asked))))

(ert-deftest complex-edit-test-a-cancel-says-cancelled ()
  "A cancel reads as one, without the JSON-RPC error behind it."
  (let* ((answers nil)
         (complex-edit-done-hook (list (lambda (answer) (push answer answers))))
         (job (complex-edit--job-create :buffer (current-buffer))))
    (cl-letf (((symbol-function 'complex-edit--stop) (lambda (_job) t)))
      (complex-edit--failed job '(:code -32800 :message "Request cancelled (jsonrpc)")))
    (let ((answer (car answers)))
      (should (equal (plist-get answer :reason) "cancelled"))
      (should (equal (complex-edit--describe answer)
                     "Complex Edit: cancelled; nothing was applied"))
      (should-not (string-match-p "JSON-RPC\\|jsonrpc\\|-32800"
                                  (complex-edit--describe answer))))))

(ert-deftest complex-edit-test-an-edit-across-files-names-the-other-files ()
  (let* ((dir (make-temp-file "complex-edit-test" t))
         (other (expand-file-name "lib.py" dir))
         (default-directory (file-name-as-directory dir)))
    (unwind-protect
        (progn
          (with-temp-file other (insert "foo = 1\n"))
          (with-current-buffer (find-file-noselect other)
            (insert "# changed\n"))
          (let ((text (complex-edit--describe
                       `(:success t :applied t :message "renamed"
                         :documents [(:uri "file:///p/a.py" :applied t)
                                     (:uri ,(concat "file://" other) :applied t)])
                       "file:///p/a.py")))
            (should (equal text "Complex Edit: renamed (also changed: lib.py; unsaved, \
C-x s saves them)")))
          (should (equal (complex-edit--arguments
                          (list :uri (lambda () "file:///p/a.py") :to-lsp #'ignore)
                          "rename" nil "edit")
                         '(:textDocument (:uri "file:///p/a.py") :prompt "rename"
                           :otherFiles "edit"))))
      (when-let ((buffer (find-buffer-visiting other)))
        (with-current-buffer buffer (set-buffer-modified-p nil))
        (kill-buffer buffer))
      (delete-directory dir t))))

(ert-deftest complex-edit-test-lsp-mode-positions-are-utf16 ()
  (skip-unless (require 'lsp-mode nil t))
  (require 'complex-edit-lsp-mode)
  (with-temp-buffer
    (insert "a😀b\nsecond\n")
    (should (equal (complex-edit-lsp-mode--to-lsp 4) '(:line 0 :character 4)))
    (should (equal (complex-edit-lsp-mode--to-lsp 3) '(:line 0 :character 3)))
    (should (= (complex-edit-lsp-mode--to-point '(:line 0 :character 3)) 3))
    (should (= (complex-edit-lsp-mode--to-point '(:line 1 :character 2)) 7))))

(ert-deftest complex-edit-test-the-proposal-lifetime-is-the-servers ()
  (should (equal (complex-edit-review--lifetime '(:proposalLifetimeSeconds 60)) "60 s"))
  (should (equal (complex-edit-review--lifetime '(:proposalLifetimeSeconds 1800)) "30 min"))
  (should (equal (complex-edit-review--lifetime '(:success t)) "15 min")))

;;; complex-edit-test.el ends here

(ert-deftest complex-edit-test-live-buffer-shows-files-not-visited ()
  "A preview with version null goes to *complex-edit live* as a diff, redrawn as the
next one arrives; the file is not visited; the end of the edit says it ended."
  (let* ((file (make-temp-file "complex-edit-live" nil ".py" "alpha\nbeta\ngamma\n"))
         (uri (concat "file://" file))
         (complex-edit-live-preview t)
         (complex-edit-live--sections nil)
         (complex-edit-live--state nil))
    (unwind-protect
        (progn
          (complex-edit-live-show
           `(:textDocument (:uri ,uri :version nil)
             :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")] :done :json-false)
           #'complex-edit-test--utf16-point (lambda () 0))
          (with-current-buffer complex-edit-live-buffer
            (should (derived-mode-p 'diff-mode))
            (should (string-match-p "^-beta\n\\+BETA\n" (buffer-string)))
            (should (string-match-p "running" header-line-format)))
          (complex-edit-live-show
           `(:textDocument (:uri ,uri :version nil)
             :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")
                     ,(complex-edit-test--hunk 2 "gamma\n" "GAMMA\n")]
             :done :json-false)
           #'complex-edit-test--utf16-point (lambda () 0))
          (with-current-buffer complex-edit-live-buffer
            (should (string-match-p "^@@ -2,1 \\+2,1 @@\n-beta\n\\+BETA\n" (buffer-string)))
            (should (string-match-p "^@@ -3,1 \\+3,1 @@\n-gamma\n\\+GAMMA\n" (buffer-string))))
          (should-not (find-buffer-visiting file))
          (complex-edit-live-end)
          (with-current-buffer complex-edit-live-buffer
            (should (string-match-p "ended" header-line-format))
            (should (string-match-p "GAMMA" (buffer-string)))))
      (delete-file file)
      (when (get-buffer complex-edit-live-buffer) (kill-buffer complex-edit-live-buffer)))))

(ert-deftest complex-edit-test-live-overlays-drawn-and-cleared ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (let* ((file (make-temp-file "complex-edit-live" nil ".txt"))
           (complex-edit-live-preview t)
           (undo buffer-undo-list))
      (unwind-protect
          (progn
            (set-visited-file-name file t)
            (set-buffer-modified-p nil)
            (complex-edit-live-show
             `(:textDocument (:uri ,(concat "file://" file) :version 4)
               :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")] :done :json-false)
             #'complex-edit-test--utf16-point (lambda () 4))
            (should (= 1 (length (seq-filter (lambda (o) (overlay-get o 'complex-edit-live))
                                             (overlays-in (point-min) (point-max))))))
            (should (equal (buffer-string) "alpha\nbeta\n"))
            (should-not (buffer-modified-p))
            (should (eq buffer-undo-list undo))
            ;; A preview of a version the buffer left behind is not drawn.
            (complex-edit-live-show
             `(:textDocument (:uri ,(concat "file://" file) :version 3)
               :hunks [] :done :json-false)
             #'complex-edit-test--utf16-point (lambda () 4))
            (should (seq-find (lambda (o) (overlay-get o 'complex-edit-live))
                              (overlays-in (point-min) (point-max))))
            (complex-edit-live-show
             `(:textDocument (:uri ,(concat "file://" file) :version 4) :hunks [] :done t)
             #'complex-edit-test--utf16-point (lambda () 4))
            (should-not (seq-find (lambda (o) (overlay-get o 'complex-edit-live))
                                  (overlays-in (point-min) (point-max)))))
        (set-visited-file-name nil)
        (delete-file file)))))

;;;; History and revert, against fake answers of complexEdit.history / complexEdit.revert
;;;; (the server side is being built in another branch: these follow the contract).

(require 'complex-edit-history)

(defun complex-edit-test--history-backend (answers)
  "A backend whose server answers each command from ANSWERS, an alist
\(COMMAND . FUNCTION-OF-ARGUMENTS); the requests go to `complex-edit-test--sent'."
  (list :name 'test :connection 'fake :uri (lambda () "file:///p/a.py")
        :send (lambda (params on-result _on-error)
                (let ((arguments (aref (plist-get params :arguments) 0)))
                  (push (cons (plist-get params :command) arguments) complex-edit-test--sent)
                  (funcall on-result
                           (funcall (cdr (assoc (plist-get params :command) answers))
                                    arguments)))
                'handle)))

(ert-deftest complex-edit-test-history-lists-the-edits-newest-first ()
  (let ((complex-edit-test--sent nil)
        (display-buffer-overriding-action '(display-buffer-no-window (allow-no-window . t))))
    (cl-letf (((symbol-function 'complex-edit--backend)
               (lambda () (complex-edit-test--history-backend
                           `(("complexEdit.history"
                              . ,(lambda (_)
                                   [(:id "e2" :time "2026-11-28T05:00:00Z"
                                     :instruction "rename greet" :files ["a.py" "b.py"]
                                     :added 3 :removed 3)
                                    (:id "e1" :time "2026-11-28T04:00:00Z"
                                     :instruction "add a docstring" :files ["a.py"]
                                     :added 2 :removed 0)])))))))
      (complex-edit-history)
      (with-current-buffer complex-edit-history-buffer
        (should (derived-mode-p 'complex-edit-history-mode))
        (should (equal (mapcar #'car tabulated-list-entries) '("e2" "e1")))
        (goto-char (point-min))
        (should (search-forward "rename greet" nil t))
        (should (search-forward "add a docstring" nil t))
        (should (string-match-p "a\\.py, b\\.py" (buffer-string))))
      (should (equal (car complex-edit-test--sent)
                     '("complexEdit.history" :limit 50)))
      (kill-buffer complex-edit-history-buffer))))

(ert-deftest complex-edit-test-revert-asks-to-force-a-conflict ()
  (let ((complex-edit-test--sent nil)
        (answers nil)
        (asked nil))
    (let ((complex-edit-done-hook (list (lambda (answer) (push answer answers)))))
      (cl-letf (((symbol-function 'complex-edit--backend)
                 (lambda () (complex-edit-test--history-backend
                             `(("complexEdit.revert"
                                . ,(lambda (arguments)
                                     (if (plist-get arguments :force)
                                         '(:success t :applied t :message "reverted" :editId "e3")
                                       '(:success :json-false :applied :json-false
                                         :reason "conflict"
                                         :error "b.py changed where the edit applied."))))))))
                ((symbol-function 'y-or-n-p) (lambda (prompt) (setq asked prompt) t)))
        (with-temp-buffer (complex-edit-revert))))
    (should (string-match-p "b.py changed" asked))
    (should (equal (mapcar #'cdr (reverse complex-edit-test--sent)) '(nil (:force t))))
    (should (equal (plist-get (car answers) :message) "reverted"))
    (should (equal (complex-edit--describe (car answers)) "Complex Edit: reverted"))))

(ert-deftest complex-edit-test-a-declined-conflict-reverts-nothing-and-says-so ()
  (let ((complex-edit-test--sent nil)
        (answers nil))
    (let ((complex-edit-done-hook (list (lambda (answer) (push answer answers)))))
      (cl-letf (((symbol-function 'complex-edit--backend)
                 (lambda () (complex-edit-test--history-backend
                             `(("complexEdit.revert"
                                . ,(lambda (_)
                                     '(:success :json-false :applied :json-false
                                       :reason "conflict" :error "b.py changed.")))))))
                ((symbol-function 'y-or-n-p) (lambda (_) nil)))
        (with-temp-buffer (complex-edit-revert))))
    (should (= (length complex-edit-test--sent) 1))
    (should (equal (complex-edit--describe (car answers))
                   "Complex Edit failed (conflict): b.py changed."))))
