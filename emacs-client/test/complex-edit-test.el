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

(defun complex-edit-test--backend (version)
  "A backend that reads positions in UTF-16 and is at VERSION."
  (list :name 'test :version (lambda () version)
        :to-point #'complex-edit-test--utf16-point))

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

(ert-deftest complex-edit-test-with ()
  (should (equal (complex-edit-with '(:a 1 :b 2) :b 3 :c 4) '(:a 1 :b 3 :c 4))))

(ert-deftest complex-edit-test-review-keeps-one-of-two-as-one-undo-step ()
  (complex-edit-test--with-buffer "alpha\nbeta\ngamma\ndelta\n"
    (complex-edit-review-start
     `(:success t :message "bumped" :version 3
       :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")
               ,(complex-edit-test--hunk 3 "delta\n" "DELTA\n")])
     (complex-edit-test--backend 3))
    (should buffer-read-only)
    (should (equal (buffer-string) "alpha\nbeta\ngamma\ndelta\n"))
    (complex-edit-review-keep)
    (complex-edit-review-drop)
    (should-not buffer-read-only)
    (should-not complex-edit-review-mode)
    (should (equal (buffer-string) "alpha\nBETA\ngamma\ndelta\n"))
    (should (equal (plist-get (car answers) :kept) 1))
    (should (equal (plist-get (car answers) :declined) 1))
    (should (eq (plist-get (car answers) :applied) t))
    (undo-boundary)
    (primitive-undo 1 (cdr buffer-undo-list))
    (should (equal (buffer-string) "alpha\nbeta\ngamma\ndelta\n"))))

(ert-deftest complex-edit-test-review-places-hunks-in-utf16 ()
  (complex-edit-test--with-buffer "x = \"😀\" + old\n"
    (complex-edit-review-start
     '(:success t :version 1
       :hunks [(:range (:start (:line 0 :character 11) :end (:line 0 :character 14))
                :oldText "old" :newText "new")])
     (complex-edit-test--backend 1))
    (complex-edit-review-keep)
    (should (equal (buffer-string) "x = \"😀\" + new\n"))))

(ert-deftest complex-edit-test-review-refuses-hunks-whose-text-moved ()
  (complex-edit-test--with-buffer "# typed\nalpha\nbeta\n"
    ;; Computed before "# typed" was added: line 1 is no longer "beta".
    (complex-edit-review-start
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     (complex-edit-test--backend 2))
    (should-not complex-edit-review-mode)
    (should (equal (buffer-string) "# typed\nalpha\nbeta\n"))
    (should (equal (plist-get (car answers) :reason) "document_changed"))
    (should (eq (plist-get (car answers) :applied) :json-false))))

(ert-deftest complex-edit-test-review-refuses-when-the-kept-text-changed ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (complex-edit-review-start
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     (complex-edit-test--backend 1))
    (let ((inhibit-read-only t))         ; a change that is not the user's typing
      (save-excursion (goto-char (point-max)) (forward-line -1) (insert "b")))
    (complex-edit-review-keep)
    (should (equal (buffer-string) "alpha\nbbeta\n"))
    (should (equal (plist-get (car answers) :reason) "document_changed"))))

(ert-deftest complex-edit-test-review-quit-applies-nothing ()
  (complex-edit-test--with-buffer "alpha\nbeta\n"
    (complex-edit-review-start
     `(:success t :version 1 :hunks [,(complex-edit-test--hunk 1 "beta\n" "BETA\n")])
     (complex-edit-test--backend 1))
    (complex-edit-review-quit)
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

(ert-deftest complex-edit-test-lsp-mode-positions-are-utf16 ()
  (skip-unless (require 'lsp-mode nil t))
  (require 'complex-edit-lsp-mode)
  (with-temp-buffer
    (insert "a😀b\nsecond\n")
    (should (equal (complex-edit-lsp-mode--to-lsp 4) '(:line 0 :character 4)))
    (should (equal (complex-edit-lsp-mode--to-lsp 3) '(:line 0 :character 3)))
    (should (= (complex-edit-lsp-mode--to-point '(:line 0 :character 3)) 3))
    (should (= (complex-edit-lsp-mode--to-point '(:line 1 :character 2)) 7))))

;;; complex-edit-test.el ends here
